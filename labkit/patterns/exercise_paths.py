"""What a student's code asked the database, for the exercises' access-path checks.

Why: an outcome check passes code that gets the right answer the wrong way (a login that scans with ALLOW
FILTERING, a comment page read with a query by post). These recorders sit between the student's code and
the driver and note each statement (Cassandra) or command (MongoDB), so a check can say which access path
ran, in plain words.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from typing import Any, Callable

from pymongo.monitoring import CommandListener


@dataclass(frozen=True)
class Cql:
    """One statement as a check reads it: verb, table, the columns its WHERE restricts, and whether it filters."""

    verb: str
    table: str
    where: tuple[str, ...]
    filtering: bool
    text: str
    batch: str | None = None  # "LOGGED" / "UNLOGGED" when the statement ran inside a batch

    def reads(self, table: str, key: str) -> bool:
        """A read of one partition of `table` by its partition key `key`, no filtering."""
        return self.verb == "SELECT" and self.table == table and key in self.where and not self.filtering

    def __str__(self) -> str:
        return re.sub(r"\s+", " ", self.text).strip()


def shape(text: str, batch: str | None = None) -> Cql:
    """Parse the little of a CQL statement the checks need (no full grammar: our statements and a student's)."""
    flat = re.sub(r"\s+", " ", text).strip()
    verb = flat.split(" ", 1)[0].upper()
    table = re.search(r"\b(?:FROM|INTO|UPDATE)\s+([\w.\"]+)", flat, re.IGNORECASE)
    where = re.search(r"\bWHERE\b(.*?)(?:\bORDER BY\b|\bLIMIT\b|\bALLOW FILTERING\b|\bIF\b|$)", flat, re.IGNORECASE)
    columns = tuple(c.lower() for c in re.findall(r"\b(\w+)\s*(?:=|<|>|\bIN\b|\bCONTAINS\b)", where.group(1), re.IGNORECASE)) if where else ()
    name = table.group(1).replace('"', "").split(".")[-1].lower() if table else ""
    return Cql(verb, name, columns, "ALLOW FILTERING" in flat.upper(), flat, batch)


class RecordingSession:
    """A cassandra-driver Session that notes every statement it runs (batches: each statement inside), then runs it."""

    def __init__(self, session: Any):
        self._session = session
        self._lock = threading.Lock()
        self.executed: list[Cql] = []
        self.requests = 0  # what went to the server: a batch is one request

    def _note(self, statement: Any) -> None:
        from cassandra.query import BatchStatement

        with self._lock:
            self.requests += 1
            if isinstance(statement, BatchStatement):
                kind = getattr(statement.batch_type, "name", str(statement.batch_type))
                prepared = self._session.cluster._prepared_statements
                for is_prepared, item, _params in statement._statements_and_parameters:
                    text = prepared[item].query_string if is_prepared and item in prepared else str(item)
                    self.executed.append(shape(text, kind))
            else:
                self.executed.append(shape(text_of(statement)))

    def execute(self, statement: Any, *args: Any, **kwargs: Any) -> Any:
        self._note(statement)
        return self._session.execute(statement, *args, **kwargs)

    def execute_async(self, statement: Any, *args: Any, **kwargs: Any) -> Any:
        self._note(statement)
        return self._session.execute_async(statement, *args, **kwargs)

    def take(self) -> list[Cql]:
        """The statements since the last take (one transaction's, when the check calls one at a time)."""
        with self._lock:
            done, self.executed = self.executed, []
            self.requests = 0
            return done

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)


def text_of(statement: Any) -> str:
    """The CQL of a string, SimpleStatement, PreparedStatement or BoundStatement."""
    if isinstance(statement, str):
        return statement
    prepared = getattr(statement, "prepared_statement", None)
    if prepared is not None:
        return prepared.query_string
    return getattr(statement, "query_string", str(statement))


def recording(workload: Any) -> RecordingSession:
    """Put a recorder in front of a Cassandra workload's session (this process only) and return it."""
    recorder = RecordingSession(workload.session)
    _ = workload.statements  # prepared on the real session first
    workload.use_session(recorder)
    return recorder


def judged_call(recorder: RecordingSession, what: str, call: Callable[[], Any],
                judge: Callable[[list[Cql]], str | None]) -> tuple[Any, str | None]:
    """Call one of the student's methods, judge the statements it sent, and return its result with what is wrong in
    one sentence (None: nothing). Why: a check grades the access path first; a read the servers refuse (an index
    still building, a scan that timed out) must not hide what the path was. `what` names the call ("login(3)");
    `judge` returns a sentence for a wrong path. An unwritten method (NotImplementedError) still raises."""
    try:
        result, error = call(), None
    except NotImplementedError:
        raise
    except Exception as exc:  # the student's code, or the servers' answer to it
        result, error = None, exc
    sent = recorder.take()
    if error is not None and not sent:
        return None, _raised(what, error)
    wrong = judge(sent)
    if wrong is None and error is not None:
        wrong = _raised(f"{what} ran {listing(sent)} and", error)
    return result, wrong


def _raised(what: str, error: Exception) -> str:
    text = " ".join(str(error).split())
    return f"{what} raised {type(error).__name__}: {text[:300]}"


def listing(statements: list[Cql]) -> str:
    return "; ".join(str(s) for s in statements) or "no statement"


class MongoCommands(CommandListener):
    """A pymongo CommandListener that notes each command (name, collection, filter) a client sent."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.commands: list[dict[str, Any]] = []

    def started(self, event: Any) -> None:
        command = event.command
        name = event.command_name
        if name in ("hello", "isMaster", "ismaster", "ping", "endSessions", "buildInfo", "saslStart", "saslContinue"):
            return
        entry = {"name": name, "collection": command.get(name) if isinstance(command.get(name), str) else None,
                 "filter": command.get("filter", command.get("query")), "update": command.get("update"), "sort": command.get("sort")}
        with self._lock:
            self.commands.append(entry)

    def succeeded(self, event: Any) -> None:
        pass

    def failed(self, event: Any) -> None:
        pass

    def take(self) -> list[dict[str, Any]]:
        with self._lock:
            done, self.commands = self.commands, []
            return done


def own_methods(report: Any, workload_class: type, methods: tuple[str, ...]) -> bool:
    """Each method must be the student's: defined in their class, not inherited from labkit (whose
    exercise base only raises NotImplementedError, and whose binding is the solution). When every one of
    them is still the TODO stub, the check says so at once instead of setting up servers to find out; one
    written method is enough to go on (the others fail their own steps: partial credit)."""
    for name in methods:
        owner = next((k for k in workload_class.__mro__ if name in k.__dict__), None)
        if owner is None or owner.__module__.startswith("labkit."):
            where = f"{owner.__module__}.{owner.__qualname__}" if owner else "nowhere"
            return report.add(
                "your methods are the ones that run", False,
                f"{workload_class.__name__}.{name}() comes from {where}, not from your class: write {name}() in {workload_class.__name__}",
            )
    if all(still_the_stub(getattr(workload_class, name)) for name in methods):
        return report.add("your methods are the ones that run", False,
                          f"not written yet: {', '.join(f'{m}()' for m in methods)} each still raise NotImplementedError; see the TODO comments above them")
    return report.add("your methods are the ones that run", True, ", ".join(f"{m}()" for m in methods))


def still_the_stub(function: Callable) -> bool:
    """True when calling `function` can only end in its own `raise NotImplementedError`: the statement stands
    at the top of its body and nothing before it can return, yield or raise anything else. Read from the
    source (a notebook cell's too), so no server is needed to tell; source that cannot be read counts as written."""
    import ast
    import inspect
    import textwrap

    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    except (OSError, TypeError, SyntaxError):
        return False
    definition = tree.body[0] if tree.body else None
    if not isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    for statement in definition.body:
        if isinstance(statement, ast.Raise):
            raised = statement.exc.func if isinstance(statement.exc, ast.Call) else statement.exc
            return isinstance(raised, ast.Name) and raised.id == "NotImplementedError"
        if any(isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom, ast.Raise, ast.Await)) for node in ast.walk(statement)):
            return False
    return False
