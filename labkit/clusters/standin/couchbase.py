"""A Couchbase stand-in: CouchbaseMock 1.5.27 from Maven Central, on 127.0.0.1.

Only for machines where no real Couchbase Server can run (this project's CI): it keeps the notebooks'
SDK code executable and is labelled a stand-in everywhere. Measured: counters, CAS, get_multi and
subdocument operations are exact under 20 threads; no N1QL, no XDCR; passwords are not checked; its
REST port listens on every interface whatever --host says (the launcher below fixes that). The
SDK 4 connects through the bucket's own key-value port, which the mock publishes in its bucket
description (`/pools/default/b/<bucket>`), not through the REST port.
"""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from ...errors import LabkitError
from .. import maven
from ..lifecycle import Ready
from ...host import processes
from .jvm import HOST, StandinServer, cache_dir, compiled_launcher, java

VERSION = "1.5.27"
REST_PORT = 18091  # not 8091: a real Couchbase node may want that one
BUCKET = "lab"
USERNAME, PASSWORD = "Administrator", "password"  # the mock's built-in admin: key-value accepts any, its REST (flush) wants these
LAUNCHER = "LabkitCouchbaseStandin"
LAUNCHER_SOURCE = """
import com.couchbase.mock.CouchbaseMock;
import com.couchbase.mock.httpio.HttpServer;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.InetSocketAddress;

/** CouchbaseMock with its REST port on 127.0.0.1 only: the mock binds that port to every interface
 *  whatever --host says, so its HTTP server is swapped for one that binds the loopback address. */
public class LabkitCouchbaseStandin {
    static class LoopbackHttpServer extends HttpServer {
        @Override
        public void bind(InetSocketAddress address) throws IOException {
            super.bind(new InetSocketAddress("127.0.0.1", address.getPort()));
        }
    }

    public static void main(String[] args) throws Exception {
        Field cccp = CouchbaseMock.class.getDeclaredField("cccpBootstrap");  // what --cccp sets: SDK 4 bootstraps over key-value
        cccp.setAccessible(true);
        cccp.setBoolean(null, true);
        CouchbaseMock mock = new CouchbaseMock("127.0.0.1", Integer.parseInt(args[0]), 1, 0, 64, args[1], 0);
        Field field = CouchbaseMock.class.getDeclaredField("httpServer");
        field.setAccessible(true);
        HttpServer original = (HttpServer) field.get(mock);
        HttpServer loopback = new LoopbackHttpServer();
        for (Field f : HttpServer.class.getDeclaredFields()) {  // carry over the handlers registered so far
            if (!Modifier.isStatic(f.getModifiers())) {
                f.setAccessible(true);
                f.set(loopback, f.get(original));
            }
        }
        field.set(mock, loopback);
        mock.start();
        mock.waitForStartup();
        Thread.currentThread().join();
    }
}
"""


def install() -> str:
    """The classpath of the jars and the compiled launcher, in labkit's cache (made once)."""
    home = cache_dir(f"CouchbaseMock-{VERSION}")
    lib = maven.resolve([f"com.couchbase.mock:CouchbaseMock:{VERSION}"], home / "lib", f"CouchbaseMock {VERSION}")
    return compiled_launcher(home, LAUNCHER, LAUNCHER_SOURCE, lib)


class StandinCouchbase(StandinServer):
    """CouchbaseMock with one node and one `lab` bucket, REST on 127.0.0.1:18091."""

    engine = "couchbase"
    name = "standin-couchbase"
    label = f"CouchbaseMock {VERSION}"
    port = REST_PORT
    bucket = BUCKET
    query_service = False
    """No SQL++ query or index service: the SDK aborts the whole process (a C++ terminate, not an
    exception) on the mock's reply to an index request, so a workload must not send one."""

    def command(self) -> list[str]:
        return [java(), f"-Dlabkit.dir={self.directory}", "-Xmx256m", "-XX:+UseSerialGC", "-Djava.net.preferIPv4Stack=true", "-cp", install(), LAUNCHER, str(self.port), f"{BUCKET}::couchbase"]

    def kv_port(self) -> int:
        """The bucket's key-value port, from the mock's own bucket description."""
        try:
            with urllib.request.urlopen(f"http://{HOST}:{self.port}/pools/default/b/{BUCKET}", timeout=10) as response:
                description = json.loads(response.read())
        except OSError as exc:
            raise LabkitError(f"the {self.label} stand-in does not describe bucket {BUCKET!r} on {HOST}:{self.port}: {exc}") from exc
        return int(description["nodes"][0]["ports"]["direct"])

    @property
    def connection_string(self) -> str:
        return f"couchbase://{HOST}:{self.kv_port()}"

    def wait_engine_ready(self) -> None:
        Ready(f"the {self.label} stand-in's key-value port", lambda: processes.port_open(HOST, self.kv_port()), self.startup_timeout).wait()

    def cluster(self) -> Any:
        from ...engines import couchbase

        return couchbase.connect(self.connection_string, USERNAME, PASSWORD)

    def collection(self) -> Any:
        from ...engines import couchbase

        return couchbase.collection(self.cluster(), BUCKET)
