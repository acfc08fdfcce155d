#!/bin/sh
# The system packages labkit needs, checked before `make` does anything else. Run as root where apt-get
# is, it installs the missing ones (only those); elsewhere it names them, the packages on one line, and
# stops with exit 1 when a required one is missing. `labkit doctor` reads this table for its advice.
# Usage: PYTHON=python3 sh labkit/system-deps.sh GROUP...   (required, optional, browser)
set -u
PYTHON=${PYTHON:-python3}
PYVER=$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || echo 3)
TOXIPROXY=2.12.0  # labkit/faults/latency.py's VERSION

table() {
# need NAME         PACKAGE                 GROUP    TEST (true when present)  WHAT IT DOES
need "JDK 17"       openjdk-17-jdk-headless required jdk17            "runs Cassandra and HBase (java and javac 17)"
need Maven          maven                   required "have mvn"       "fetches the servers' jars from Maven Central"
need Go             golang-go               required go_or_toxiproxy  "builds toxiproxy, which notebook 01 and exercise 01 need (WAN latency; partitions without root)"
need "Python venv"  "python$PYVER-venv"     required ensurepip        "lets make create .venv (python$PYVER -m venv)"
need iptables       iptables                optional "have iptables"  "cuts the links of network partitions as root; toxiproxy does it otherwise"
need Chromium       chromium                browser  "have chromium"  "runs make test's JupyterLab browser test"
}

have() { command -v "$1" >/dev/null 2>&1; }
jdk17() {  # the java labkit runs (JAVA_HOME's, else PATH's) is 17, with javac beside it
  java=${JAVA_HOME:+$JAVA_HOME/bin/}java
  "$java" -version 2>&1 | grep -q 'version "17[."]' && [ -x "$(command -v "$java")c" ]
}
ensurepip() { "$PYTHON" -c 'import ensurepip' >/dev/null 2>&1; }  # Debian's python3.X-venv has it
go_or_toxiproxy() {  # or toxiproxy already built (an instructor's shared cache, or an earlier build)
  have go || [ -x "${LABKIT_SHARED_CACHE:-/opt/labkit/cache}/toxiproxy/$TOXIPROXY/server" ] ||
    [ -x "${LABKIT_HOME:-$HOME/.cache/labkit}/toxiproxy/$TOXIPROXY/server" ]
}

WANT=" $* "
missing() {  # one line per missing package of the groups asked for: name|package|group|what
  need() { case "$WANT" in *" $3 "*) eval "$4" >/dev/null 2>&1 || printf '%s|%s|%s|%s\n' "$1" "$2" "$3" "$5" ;; esac; }
  table
}
column() { printf '%s\n' "$gaps" | awk -F'|' -v f="$1" -v g="${2:-}" 'g == "" || $3 == g { printf "%s%s", s, $f; s = " " }'; }

gaps=$(missing)
[ -z "$gaps" ] && exit 0
if [ "$(id -u)" = 0 ] && have apt-get; then
  printf '%s\n' "$gaps" | while IFS='|' read -r name package group what; do echo "installing $package ($name), which $what"; done
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(column 2) >/dev/null
  gaps=$(missing)
  [ -z "$gaps" ] && exit 0
fi
printf '%s\n' "$gaps" | while IFS='|' read -r name package group what; do
  [ "$group" = required ] || echo "note: $name is missing (it $what): apt-get install $package"
done
[ -z "$(column 1 required)" ] && exit 0
echo "labkit needs what this machine lacks:"
printf '%s\n' "$gaps" | while IFS='|' read -r name package group what; do [ "$group" = required ] && echo "  $name: $what"; done
for jdk in /usr/lib/jvm/java-17-openjdk-*; do
  case "$gaps" in *"JDK 17|"*) [ -x "$jdk/bin/javac" ] && echo "  (JDK 17 is in $jdk but not the java labkit finds: export JAVA_HOME=$jdk)" ;; esac
done
echo "install them (as root), then run make again:"
echo "  apt-get install $(column 2 required)"
exit 1
