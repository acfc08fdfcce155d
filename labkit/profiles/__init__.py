"""Profiles: a student's own designs of an application, described in a YAML file and measured with the lab's
machinery (issue "Your own design"; format and checks in `format`)."""

from .format import Profile, load_profile, parse_profile

__all__ = ["Profile", "load_profile", "parse_profile"]
