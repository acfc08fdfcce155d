"""What Index Table is on every engine: its phases and approaches, the users it registers and finds, and
how a phase's result is judged."""

from __future__ import annotations

import uuid
from typing import Iterable, Mapping, NamedTuple

from ...runner import Transaction, Verification

NAME = "index-table"
APPROACHES = ("naive/legacy", "naive/sai", "naive/index", "pattern")
ENGINE_APPROACHES = {
    "cassandra": ("naive/legacy", "naive/sai", "pattern"),  # Cassandra's original index and its Storage-Attached Index
    "mongodb": ("naive/index", "pattern"),  # a secondary index on e-mail of a collection sharded by user id
    "couchbase": ("naive/index", "pattern"),  # a Global Secondary Index on e-mail, asked through the query service
}
PHASES = ("register", "login")
EMAIL_DOMAIN = "students.example"
USER_NAMESPACE = uuid.UUID("6f1c1b1e-3c1a-4d7e-9a55-2f0d3a1b7c11")


class User(NamedTuple):
    """A user as a login finds it (every engine's binding returns one of these, or the engine's own row
    with the same fields)."""

    id: uuid.UUID
    email: str
    name: str
    password_hash: str


def email_of(n: int) -> str:
    """The n-th user's e-mail (warm-up users, n < 0, get their own prefix)."""
    return f"user{n:07d}@{EMAIL_DOMAIN}" if n >= 0 else f"warmup{-n:07d}@{EMAIL_DOMAIN}"


def id_of(n: int) -> uuid.UUID:
    """A stable UUID per user number, so a login can check it found the right record."""
    return uuid.uuid5(USER_NAMESPACE, email_of(n))


def number_of(email: str) -> int:
    local = email.split("@", 1)[0]
    return int(local[4:]) if local.startswith("user") else -int(local[6:])


def user_row(n: int) -> tuple[uuid.UUID, str, str, str]:
    """(id, e-mail, name, password hash) of user number n."""
    return (id_of(n), email_of(n), f"Student {n}", f"pbkdf2${n:08x}")


class UserPhases:
    """What a transaction of each phase is, on every engine: the register phase registers user number
    seq*workers+worker (a run of `users` operations covers 0..users-1 exactly), the login phase logs in a
    random one of the `users` loaded. Bindings write register() and login() and call found_user()."""

    phase: str
    users: int

    def transaction(self, tx: Transaction) -> None:
        if self.phase == "register":
            self.register(tx, tx.seq * tx.workers + tx.worker)
        else:
            self.login(tx, tx.rng.randrange(self.users))

    def register(self, tx: Transaction, n: int) -> None:
        raise NotImplementedError

    def login(self, tx: Transaction, n: int) -> object:
        raise NotImplementedError


def found_user(found, n: int):
    """A login's result if it is user n's record; a login that finds the wrong user, or none, fails."""
    if found is None or found.id != id_of(n):
        raise LookupError(f"login of {email_of(n)} found {found and found.id}, expected {id_of(n)}")
    return found


def sample_numbers(users: int, sample: int) -> list[int]:
    """`sample` user numbers spread over the whole range (what verify() asks an index for)."""
    return list(range(0, users, max(1, users // max(1, sample))))


def judge(users: int, stored: Mapping[uuid.UUID, str], pointers: Mapping[str, uuid.UUID] | None = None,
          index_found: Iterable[tuple[str, bool]] | None = None, index_errors: Mapping[str, str] | None = None) -> Verification:
    """Exactly users 0..users-1 stored (`stored`: id -> e-mail), each under its own id; with the pattern,
    a lookup entry per user pointing at it (`pointers`: e-mail -> id); with an index, the sampled e-mails
    found through it (`index_found`: (e-mail, found exactly that user)); `index_errors`: e-mail -> the
    error its index query kept failing with (reported as errors, not as records the index lost)."""
    numbers = sorted(n for n in (number_of(e) for e in stored.values()) if n >= 0)
    problems = []
    if numbers != list(range(users)):
        missing = sorted(set(range(users)) - set(numbers))
        extra = len(set(numbers) - set(range(users)))
        problems.append(f"{len(missing)} users missing (first: {missing[:5]}), {extra} unexpected")
    wrong_ids = [e for i, e in stored.items() if i != id_of(number_of(e))]
    if wrong_ids:
        problems.append(f"{len(wrong_ids)} users stored under the wrong id (first: {wrong_ids[:3]})")
    checks: dict[str, object] = {"users": len(stored), "expected": users}
    if pointers is not None:
        unmatched = [e for i, e in stored.items() if pointers.get(e) != i]
        checks["lookup_rows"] = len(pointers)
        if len(pointers) != len(stored) or unmatched:
            problems.append(f"{len(pointers)} lookup rows for {len(stored)} users; {len(unmatched)} users not found by e-mail (first: {unmatched[:3]})")
    if index_found is not None:
        sampled = list(index_found)
        not_found = [e for e, ok in sampled if not ok]
        checks["index_sample_found"] = f"{len(sampled) - len(not_found)}/{len(sampled)}"
        if not_found:
            problems.append(f"{len(not_found)} of {len(sampled)} sampled users not found through the index (first: {not_found[:3]})")
    if index_errors:
        first = next(iter(index_errors.items()))
        checks["index_queries_failed"] = len(index_errors)
        problems.append(f"{len(index_errors)} sampled index queries kept failing, so those users are unchecked (first: {first[0]}: {first[1][:200]})")
    return Verification(not problems, checks, problems)
