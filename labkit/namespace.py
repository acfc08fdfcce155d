"""A namespace per student on a shared cluster: every keyspace (MongoDB database) the lab writes carries
the student's prefix, so forty students' runs on one course cluster neither overwrite nor verify each
other's rows, and `labkit down --provider external --purge` removes only the student's own.

The namespace is LABKIT_NAMESPACE when set; otherwise none on a cluster the lab started for this user
(local, compose, stand-in: nobody else writes there) and the user's name on an external cluster. It is
read once, in the process that makes the workload, and travels inside the workload to every client
process (never from a worker's environment).
"""

from __future__ import annotations

import os
import re
from typing import Any

from .errors import ConfigError

ENV = "LABKIT_NAMESPACE"
_VALID = re.compile(r"^[a-z][a-z0-9_]{0,19}$")


def checked(namespace: str) -> str:
    """A namespace is a prefix of keyspace names: a lowercase letter, then up to 19 letters, digits or _."""
    if namespace and not _VALID.match(namespace):
        raise ConfigError(
            f"{ENV} must start with a lowercase letter and hold at most 20 lowercase letters, digits or underscores "
            f"(it prefixes keyspace and database names); got {namespace!r}"
        )
    return namespace


def from_user(name: str) -> str:
    """A user's name made into a namespace ('Anna.Lee' -> 'anna_lee', '1234' -> 'u1234')."""
    cleaned = re.sub(r"[^a-z0-9_]", "_", name.lower())[:20]
    return cleaned if cleaned[:1].isalpha() else ("u" + cleaned)[:20]


def namespace_for(cluster: Any) -> str:
    """The namespace of the runs this process makes on `cluster` (see the module's docstring)."""
    chosen = os.environ.get(ENV)
    if chosen is not None:
        return checked(chosen.strip())
    if cluster.provider == "external":  # every provider declares it (clusters.contract)
        from .host.users import current_user

        return from_user(current_user())
    return ""


def namespaced(name: str, namespace: str) -> str:
    """'index_table' in namespace 'anna' -> 'anna_index_table'; unchanged without a namespace."""
    return f"{namespace}_{name}" if namespace else name


def is_own(name: str, namespace: str) -> bool:
    """Whether a keyspace (or database) carries this namespace's prefix."""
    return bool(namespace) and name.startswith(namespace + "_")


class Namespaced:
    """A workload whose keyspace carries its namespace: `keyspace` is `base_keyspace` behind the prefix.
    The namespace is an attribute of the workload, so it is pickled with it into every client process."""

    base_keyspace: str = ""
    namespace: str = ""

    @property
    def keyspace(self) -> str:
        return namespaced(self.base_keyspace, self.namespace)

    @property
    def database(self) -> str:
        """The same name where the engine calls it a database (MongoDB)."""
        return self.keyspace


def in_namespace(workload: Any, cluster: Any) -> Any:
    """The workload, given the namespace its runs on `cluster` write in (what every binding's factory does)."""
    workload.namespace = namespace_for(cluster)
    return workload
