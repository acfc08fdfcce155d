"""What Index Table is on every engine: its phases and approaches, and the users it registers and finds."""

from __future__ import annotations

import uuid

NAME = "index-table"
APPROACHES = ("naive/legacy", "naive/sai", "pattern")
PHASES = ("register", "login")
EMAIL_DOMAIN = "students.example"
USER_NAMESPACE = uuid.UUID("6f1c1b1e-3c1a-4d7e-9a55-2f0d3a1b7c11")


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
