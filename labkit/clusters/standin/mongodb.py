"""A MongoDB stand-in: mongo-java-server 1.47.0 (memory backend) from Maven Central, on 127.0.0.1.

Only for machines where no real MongoDB can run (this project's CI): it keeps the notebooks' pymongo
code executable and is labelled a stand-in everywhere. Measured: `$push` and `$inc` on one document
are exact under 20 threads; no sharding, no explain, no transactions. It reports a wire version that
pymongo 4 rejects (8; pymongo 4.20 wants 9 or more) unless told to present itself as a newer server,
which the launcher below does (MongoDB 5.0, wire version 13). `find_one_and_update(..., ReturnDocument.AFTER)` can return duplicates under
concurrency (BEFORE is exact), so pattern code takes BEFORE and adds the increment itself.
"""

from __future__ import annotations

from typing import Any

from .. import maven
from .jvm import HOST, StandinServer, cache_dir, compiled_launcher, java

VERSION = "1.47.0"
PORT = 27018  # not 27017: a real mongos of the local provider may want that one
LAUNCHER = "LabkitMongoStandin"
LAUNCHER_SOURCE = """
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.MongoVersion;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import java.util.List;

/** Serves an in-memory MongoDB stand-in on host:port that presents itself as MongoDB 5.0 (wire version 13). */
public class LabkitMongoStandin {
    static final MongoVersion PRESENTED = new MongoVersion() {
        public List<Integer> getVersionArray() { return List.of(5, 0, 0); }
        public int getWireVersion() { return 13; }
    };

    public static void main(String[] args) throws Exception {
        MongoServer server = new MongoServer(new MemoryBackend().version(PRESENTED));
        server.bind(args[0], Integer.parseInt(args[1]));
        Runtime.getRuntime().addShutdownHook(new Thread(server::shutdownNow));
        Thread.currentThread().join();
    }
}
"""


def install() -> str:
    """The classpath of the jars and the compiled launcher, in labkit's cache (made once)."""
    home = cache_dir(f"mongo-java-server-{VERSION}")
    lib = maven.resolve([f"de.bwaldvogel:mongo-java-server:{VERSION}"], home / "lib", f"mongo-java-server {VERSION}")
    return compiled_launcher(home, LAUNCHER, LAUNCHER_SOURCE, lib)


class StandinMongo(StandinServer):
    """mongo-java-server on 127.0.0.1:27018: one process, whatever the node slider says."""

    engine = "mongodb"
    name = "standin-mongodb"
    label = f"mongo-java-server {VERSION}"
    port = PORT

    def command(self) -> list[str]:
        return [java(), f"-Dlabkit.dir={self.directory}", "-Xmx256m", "-XX:+UseSerialGC", "-Djava.net.preferIPv4Stack=true", "-cp", install(), LAUNCHER, HOST, str(self.port)]

    @property
    def uri(self) -> str:
        return f"mongodb://{HOST}:{self.port}/"

    def client(self) -> Any:
        from ...engines import mongodb

        return mongodb.connect(self.uri)

    def wait_engine_ready(self) -> None:
        self.client().close()
