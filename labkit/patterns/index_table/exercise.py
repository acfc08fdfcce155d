"""What the Index Table exercise hands a student: the tables, prepared statements, user data and the check,
with the two transaction functions left to write. The library's own IndexTable is the solution, so the
exercise's base class is a stub of it: inheriting it gives nothing that passes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...runner import Transaction
from .cassandra import IndexTable as _Binding
from .cassandra import IndexTable
from .core import email_of, id_of, user_row

if TYPE_CHECKING:
    from ..exercise import CheckReport

__all__ = ["IndexTableExercise", "check_exercise", "email_of", "id_of", "user_row"]


class IndexTableExercise(_Binding):
    """Tables, statements (`self.statements`), session (`self.session`), verify(): everything but
    register() and login(), which are yours to write in a subclass."""

    def register(self, tx: Transaction, n: int) -> None:
        raise NotImplementedError("register() is not written yet")

    def login(self, tx: Transaction, n: int) -> Any:
        raise NotImplementedError("login() is not written yet")


def check_exercise(workload_class: type[IndexTable], cluster: Any, users: int = 200) -> "CheckReport":
    """The exercise's check: the student's own register() and login() (not the library's), run for real
    (`users` users registered, then each logged in, verify() on both), and their access paths: a
    registration writes the user row and its lookup row; a login is exactly two key reads, lookup by
    e-mail then user by id, and never a filtering scan."""
    from ..exercise import CheckReport, Graded, a_transaction, check_all, not_written, run_step
    from ..exercise_paths import listing, own_methods, recording

    def own(report: CheckReport) -> bool:
        return own_methods(report, workload_class, ("register", "login"))

    def register(report: CheckReport) -> bool:
        return run_step(report, "register users (user row + lookup row each)", workload_class(cluster.addresses, "pattern", "register", users=users), users)

    def register_path(report: CheckReport) -> bool:
        workload = workload_class(cluster.addresses, "pattern", "register", users=users)
        recorder = recording(workload)
        try:
            for n in range(3):  # users already registered: the same rows written again
                workload.register(a_transaction(), n)
                done = recorder.take()
                written = sorted(s.table for s in done if s.verb == "INSERT")
                if written != ["users_by_email", "users_pattern"] or len(done) != 2:
                    return report.add("a registration writes the user row and its lookup row", False,
                                      f"register({n}) ran {listing(done)}; the pattern writes one row into users_pattern and one into users_by_email")
        finally:
            workload.close_process()
        return report.add("a registration writes the user row and its lookup row", True, "2 writes each")

    def login(report: CheckReport) -> bool:
        return run_step(report, "log users in by e-mail under load", workload_class(cluster.addresses, "pattern", "login", users=users), users)

    def login_path(report: CheckReport) -> bool:
        workload = workload_class(cluster.addresses, "pattern", "login", users=users)
        workload.setup()
        workload.load()  # the users to log in (the run after this step finds them loaded)
        recorder = recording(workload)
        step = "a login is two key reads: lookup by e-mail, then user by id"
        try:
            for n in range(0, users, max(1, users // 20)):
                found = workload.login(a_transaction(), n)
                done = recorder.take()
                if any(s.filtering for s in done):
                    return report.add(step, False, f"login({n}) ran {listing(done)}: ALLOW FILTERING reads every partition on every node. "
                                                   "Read users_by_email by e-mail, then users_pattern by the id it holds")
                if len(done) != 2 or not (done[0].reads("users_by_email", "email") and done[1].reads("users_pattern", "id")):
                    return report.add(step, False, f"login({n}) ran {listing(done)}; the pattern reads users_by_email WHERE email = ?, "
                                                   "then users_pattern WHERE id = ?, and nothing else")
                if getattr(found, "id", None) != id_of(n):
                    return report.add("login returns the right user", False, f"login({n}) returned {found!r}, expected the row of {email_of(n)} with id {id_of(n)}")
        except NotImplementedError as exc:
            return report.add(step, False, not_written(str(exc)))
        finally:
            workload.close_process()
        report.add(step, True, "checked 20 logins one by one")
        return report.add("login returns the right user", True, "the same 20")

    return check_all(f"Index Table exercise ({workload_class.__name__})", [Graded(own, 0), Graded(register, 1, [own]), Graded(register_path, 2, [own]), Graded(login_path, 2, [own]), Graded(login, 1, [own])])
