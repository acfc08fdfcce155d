"""The `labkit` command line: check the machine, start and stop clusters, run pattern sweeps."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from . import __version__
from .clusters import ENGINES
from .errors import ConfigError, LabkitError

if TYPE_CHECKING:
    from .patterns.description import Pattern

app = typer.Typer(
    help=(
        "labkit: a teaching lab for scalability patterns of distributed NoSQL databases.\n\n"
        "Start with `labkit doctor` to see what this machine can run. Then `labkit up cassandra --nodes 3` "
        "starts a real cluster, `labkit run PATTERN ...` measures a pattern, `labkit down` stops everything."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain help text: rich markup would turn "10:100:10" into an emoji
)

ENGINE_HELP = f"Database engine: {', '.join(ENGINES[:-1])} or {ENGINES[-1]}."
PROVIDER_HELP = "Where the cluster comes from: auto (pick for this machine), local, compose, external, standin."
NODE_CPU_HELP = (
    "CPU budget of each node in cores, e.g. 0.15: every node becomes a small machine, so more nodes add capacity "
    "(local: a control group per node, needs root; compose: cpus:). Default: none, nodes share the machine's cores."
)


def _fail(exc: Exception, code: int = 2) -> None:
    typer.secho(f"error: {exc}", fg=typer.colors.RED, err=True)
    raise typer.Exit(code)


@app.callback(invoke_without_command=True)
def _root(version: bool = typer.Option(False, "--version", help="Print labkit's version and exit.")) -> None:
    if version:
        typer.echo(f"labkit {__version__}")
        raise typer.Exit(0)


@app.command()
def doctor(as_json: bool = typer.Option(False, "--json", help="Print the report as JSON.")) -> None:
    """Check this machine: JDK 17, Maven, Go, Docker, free ports, and which server each engine would run on."""
    from .doctor import report_json

    report = report_json()
    if as_json:
        typer.echo(json.dumps(report, indent=2))
    else:
        for c in report["checks"]:
            mark = "ok " if c["ok"] else ("ERR" if c["required"] else " - ")
            typer.echo(f"[{mark}] {c['name']:<14} {c['detail']}")
            if not c["ok"] and c["fix"]:
                typer.echo(f"      {'':<14} -> {c['fix']}")
        typer.echo("\nEngines on this machine (provider 'auto' would choose):")
        for engine, info in report["engines"].items():
            avail = "" if info["available_in_this_version"] == "true" else "  [not in this labkit version yet]"
            typer.echo(f"  {engine:<10} {info['provider']:<9} {info['why']}{avail}")
    if any(c["required"] and not c["ok"] for c in report["checks"]):
        raise typer.Exit(1)


@app.command()
def provision(
    engine: str = typer.Argument("cassandra", help=ENGINE_HELP + " Or all: everything the lessons use."),
    shared: Path = typer.Option(None, "--shared", help="Fill a read-only cache in DIR for every user of this host (a lab server) "
                                "instead of your own; students read it through LABKIT_SHARED_CACHE=DIR, or without it from /opt/labkit/cache."),
) -> None:
    """Download what the embedded (local) servers need into the cache, so later starts work offline (`all`: every
    engine's jars, the stand-ins' and toxiproxy, which the lessons otherwise fetch or build on first use)."""
    from .clusters import check_engine, provider_for
    from .clusters.local import shared_cache

    if engine == "all" and shared is not None:
        _fail(ConfigError("`labkit provision all --shared DIR` is not supported: fill the shared cache one engine at a time "
                          "(`labkit provision cassandra --shared DIR`, then `labkit provision hbase --shared DIR`)"))
    if engine == "all":
        from .provisioning import provision_all

        failed = provision_all(typer.echo)
        if failed:
            _fail(LabkitError(f"not ready: {', '.join(failed)} (the reasons above); the rest is in the cache"), code=1)
        return
    try:
        check_engine(engine)
        cluster_cls = provider_for(engine, "local")
        typer.echo(shared_cache.provide(shared, cluster_cls.provision) if shared else cluster_cls.provision())
    except LabkitError as exc:
        _fail(exc)


@app.command()
def up(
    engine: str = typer.Argument(..., help=ENGINE_HELP),
    nodes: int = typer.Option(None, "--nodes", "-n", min=1, max=8, help="Number of nodes (1-8; default 1, or an external cluster's own count)."),
    provider: str = typer.Option("auto", "--provider", "-p", help=PROVIDER_HELP),
    dcs: int = typer.Option(None, "--dcs", min=1, max=2, help="Datacenters to split the nodes into (1 or 2)."),
    node_cpu: float = typer.Option(None, "--node-cpu", help=NODE_CPU_HELP),
    hosts: str = typer.Option(None, "--hosts", help="--provider external: contact points of your cluster, HOST[,HOST]. "
                              "Credentials and TLS from LABKIT_CASSANDRA_USERNAME/PASSWORD (or LABKIT_CASSANDRA_CREDENTIALS) and LABKIT_CASSANDRA_TLS_CA."),
    port: int = typer.Option(None, "--port", help="--provider external: the CQL port (default 9042)."),
    dc: str = typer.Option(None, "--dc", help="--provider external: talk to this datacenter only."),
    uri: str = typer.Option(None, "--uri", help="--provider external: a MongoDB URI (mongodb://...) or a Couchbase connection string (couchbase://...). "
                            "Login and TLS from LABKIT_MONGODB_* / LABKIT_COUCHBASE_USERNAME, _PASSWORD, _TLS_CA; Couchbase's bucket from LABKIT_COUCHBASE_BUCKET (default lab)."),
) -> None:
    """Start a cluster of ENGINE with N nodes and wait until it is ready for a workload (with --provider
    external: check and record a cluster you already have; labkit never stops or resizes it)."""
    from .clusters import choose_provider, provider_for
    from .clusters.contract import check_cores

    try:
        check_cores(node_cpu)
        cluster_cls = provider_for(engine, provider)
        external = (provider if provider != "auto" else choose_provider(engine)[0]) == "external"
        if external:
            if uri and engine == "cassandra":
                raise ConfigError("a Cassandra cluster is given by its contact points: --hosts HOST[,HOST] (and --port, --dc), not --uri")
            cluster = cluster_cls.start_from_cli(nodes=nodes, dcs=dcs, node_cpu=node_cpu, hosts=hosts, port=port, dc=dc, **({"uri": uri} if uri else {}))
        else:
            if hosts or port or dc or uri:
                raise ConfigError("--hosts, --port, --dc and --uri describe a cluster you already have: use them with --provider external")
            cluster = cluster_cls.start_from_cli(nodes=nodes or 1, dcs=dcs or 1, node_cpu=node_cpu)
    except LabkitError as exc:
        _fail(exc)
    typer.echo(f"up: {cluster.info().display}" + ("  (recorded; `labkit down` forgets it and stops nothing)" if cluster.info().provider == "external" else ""))


@app.command()
def status(as_json: bool = typer.Option(False, "--json", help="Print nodes, addresses, state and version as JSON.")) -> None:
    """Show the clusters labkit started on this machine."""
    from .host import loopback
    from .clusters.registry import running_clusters

    clusters = running_clusters()
    try:
        ranges = loopback.host_ranges()
    except LabkitError as exc:  # the claims directory is unusable: say so, still show the clusters
        typer.echo(f"(the host's loopback ranges are unknown: {exc})", err=True)
        ranges = []
    if as_json:
        typer.echo(json.dumps({"clusters": clusters, "loopback_ranges": ranges}, indent=2))
        return
    others = [r for r in ranges if not r["yours"]]
    if others:
        typer.echo("labkit homes on this host (each its own addresses):")
        for r in ranges:
            who = "you" if r["yours"] else r["user"]
            typer.echo(f"  {r['range']:<18} {who:<12} {'nodes answering' if r['serving'] else 'no node answering':<18} {r['home']}")
    if not clusters:
        typer.echo("no labkit cluster of yours is running")
        return
    for c in clusters:
        typer.echo(f"{c['name']}: {c['engine']} {c.get('server_version', '?')} ({c['provider']})")
        if c.get("error"):
            typer.echo(f"  not reachable now: {c['error']}")
        nodes = c.get("nodes", [])
        name_w = max([8, *(len(n["name"]) for n in nodes)])  # "zookeeper", "127.1.2.240:2181": columns as wide as the widest
        address_w = max([12, *(len(n["address"]) for n in nodes)])
        for node in nodes:
            budget = node.get("node_cpu")
            cpu = f"cpu budget {budget:g} core" if budget else "no cpu budget"
            typer.echo(f"  {node['name']:<{name_w}} {node['address']:<{address_w}} {node.get('dc', ''):<5} {node['state']:<9} {cpu}")


@app.command()
def down(
    provider: str = typer.Option(None, "--provider", "-p", help="Only this provider's clusters (e.g. external: forget the course cluster, stop nothing local)."),
    purge: bool = typer.Option(False, "--purge", help="On an external (shared) cluster, first drop the keyspaces/databases of your namespace "
                               "(LABKIT_NAMESPACE, default your user name), and nobody else's."),
) -> None:
    """Stop every cluster labkit started on this machine (and reap leftovers of crashed runs)."""
    from .clusters import PROVIDERS
    from .clusters.registry import purge_namespace, stop_all

    try:
        if provider is not None and provider not in PROVIDERS:
            raise ConfigError(f"unknown provider {provider!r}: choose one of {', '.join(PROVIDERS)}")
        if purge and provider not in (None, "external"):
            raise ConfigError("--purge is for a shared external cluster (--provider external); a local cluster's data goes with the cluster")
        if purge:
            purged = purge_namespace()
            typer.echo("purged: " + ", ".join(purged) if purged else "purged: nothing of your namespace was there")
    except LabkitError as exc:
        _fail(exc)
    stopped = stop_all(provider)
    typer.echo("nothing to stop" if not stopped else "stopped: " + ", ".join(stopped))  # an external cluster is named as forgotten


def _processes_option(text: str) -> int | str:
    """--processes: 'auto' or a whole number of at least 1."""
    value = text.strip().lower()
    if value == "auto":
        return "auto"
    if not value.isdigit() or int(value) < 1:
        raise ConfigError(f"--processes takes a whole number of at least 1, or auto; got {text!r}")
    return int(value)


def _patterns_help() -> str:
    """Each pattern's phases, from the descriptions (the `PATTERN` argument's help)."""
    from .catalogue import descriptions

    return "Pattern (phases): " + "; ".join(f"{p.name}: {'|'.join(p.phases)}" for p in descriptions()) + "."


def _settings_help() -> str:
    """Every pattern's settings with default and range, from the descriptions (the --set option's help)."""
    from .catalogue import descriptions

    parts = []
    for p in descriptions():
        items = []
        for s in p.settings:
            where = f", {'|'.join(s.phases)} only" if s.phases else ""
            values = "|".join(s.choices) if s.choices else f"{s.low}-{s.high}"
            items.append(f"{s.name}={s.default} ({values}{where})")
        parts.append(f"{p.name}: {', '.join(items)}")
    return "A setting of the pattern's workload, NAME=VALUE, repeatable (e.g. --set users=2000). " + "; ".join(parts) + ". `labkit patterns NAME` explains each."


def _set_options(pattern: "Pattern", items: list[str]) -> dict[str, object]:
    """--set NAME=VALUE items, each parsed and checked by the pattern's description (sweeps.resolve
    refuses one that belongs to another phase, before anything starts)."""
    given: dict[str, object] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise ConfigError(f"--set takes NAME=NUMBER (e.g. --set users=2000); got {item!r}")
        given[key.strip()] = pattern.setting(key.strip()).parse(value)
    return given


def _workload_approaches(described: "Pattern", workload: str) -> list[str]:
    """--workload a,e -> the approaches baseline/a, baseline/e of a standard workload (ycsb)."""
    if not workload:
        return []
    if described.name != "ycsb":
        raise ConfigError(f"--workload picks YCSB mixes (labkit run ycsb --workload a); {described.name} compares approaches: use --approaches")
    from .workloads.ycsb import mix

    return [f"baseline/{mix(name.strip()).name}" for name in workload.split(",") if name.strip()]


def _choose_cql_driver(driver: str) -> None:
    """--driver is a client setting, not a run parameter: it goes in the environment every client process
    (spawned processes, local Dask workers) inherits, and is checked here first."""
    from .engines.cassandra_calls import DRIVER_VARIABLE, native_in_use

    native_in_use({DRIVER_VARIABLE: driver})
    os.environ[DRIVER_VARIABLE] = driver


@app.command("run")
def run_pattern(
    pattern: str = typer.Argument(..., help=_patterns_help()),
    phase: str = typer.Option("", "--phase", help="The test's phase (see PATTERN above); default: the pattern's last phase."),
    engine: str = typer.Option("cassandra", "--engine", "-e", help=ENGINE_HELP),
    nodes: str = typer.Option("1", "--nodes", "-n", help="Node counts: 4, or 4,8, or 1:8:1."),
    threads: str = typer.Option("1:8:1", "--threads", "-t", help="Client threads: 10:100:10 or 1,2,4."),
    operations: int = typer.Option(1000, "--operations", "-o", help="Transactions per run."),
    processes: str = typer.Option("auto", "--processes", help="Client processes (each with its own connections) that share each point's threads: a number, or auto (as many as help, at most one per core; the row records what was used)."),
    node_cpu: float = typer.Option(None, "--node-cpu", help=NODE_CPU_HELP),
    workers: str = typer.Option(None, "--workers", help="How each client process keeps its transactions in flight: greenlets (many per thread, through the driver's asynchronous calls) or threads (one blocking call per thread); default: greenlets."),
    driver: str = typer.Option(None, "--driver", help="Cassandra only: which client driver carries the measured calls of greenlet workers: auto (acsylla, a native core, where "
                               "installed), acsylla, or cassandra-driver; a client setting (LABKIT_CQL_DRIVER) every client process reads; rows record "
                               "the path in client_path. Default: $LABKIT_CQL_DRIVER or auto."),
    approaches: str = typer.Option("", "--approaches", help="Comma list of approaches; default: all of the pattern's."),
    size: list[str] = typer.Option([], "--set", help=_settings_help()),
    workload: str = typer.Option("", "--workload", "-w", help="ycsb only: the mixes to run, a comma list of a, b, c, d, e, f, insert-mostly (the same as --approaches baseline/a,...); default: all."),
    target: str = typer.Option("", "--target", help="Offered loads in transactions/s, each a paced run with latency measured from every transaction's intended start: 300:3000:300 or 500,1000. ycsb then defaults to --phase offered-load. Default: closed loop (as fast as the threads go)."),
    seconds: float = typer.Option(None, "--seconds", min=0.1, help="With --target: hold each offered load this long (target x seconds transactions per run) instead of --operations transactions."),
    repeats: int = typer.Option(1, "--repeats", "-r", min=1, help="Runs of each point, one per block with every approach once, "
                                "the order alternating (ABBA); from 3 each pattern / naive ratio gets a 95% interval."),
    control: str = typer.Option(None, "--control", help="An A/A control: run this approach twice in every block; the copy / first "
                                "spread is printed as the sweep's noise floor."),
    provider: str = typer.Option("auto", "--provider", "-p", help=PROVIDER_HELP),
    clients: str = typer.Option(None, "--clients", help="Run the client processes as tasks on Dask workers: local:N (N worker processes on this "
                                "machine) or dask://HOST:PORT (an existing `dask scheduler` and its `dask worker`s, e.g. on a course's client "
                                "machines, with --provider external). --processes auto then means one process per worker. Default: here."),
    out: Path = typer.Option(Path("results.csv"), "--out", help="Results file (.csv or .parquet); rows are appended."),
) -> None:
    """Sweep a pattern's naive and scalable workloads over threads x nodes and append the rows to --out."""
    from .clusters import check_engine, check_provider
    from .catalogue import describe
    from .results import ResultsStore
    from .sweeps import SweepPlan, SweepRequest, parse_range, run_sweep

    try:
        check_engine(engine)
        check_provider(provider)
        if driver is not None:
            _choose_cql_driver(driver)
        thread_counts = parse_range(threads)
        node_counts = parse_range(nodes)
        process_count = _processes_option(processes)
        ResultsStore(out)
        described = describe(pattern)
        targets = [float(t) for t in parse_range(target)] if target else [None]
        if seconds is not None and not target:
            raise ConfigError("--seconds holds each offered load that long: give the loads with --target (e.g. --target 300:3000:300)")
        phase = described.check_phase(phase or ("offered-load" if target and "offered-load" in described.phases else described.default_phase))
        named = [a.strip() for a in approaches.split(",") if a.strip()] + _workload_approaches(described, workload)
        chosen = described.check_approaches(named, phase, engine) if named else list(described.approaches_for(phase, engine))  # named with the pattern's choices
        settings = _set_options(described, size)
        plan = SweepPlan(pattern=pattern, approaches=chosen, threads=thread_counts, nodes=node_counts, operations=operations, processes=process_count,
                         run_options={"workers": workers} if workers else {}, targets=targets, target_seconds=seconds, repeats=repeats,
                         control=control)
        request = SweepRequest(described, plan, phase=phase, settings=settings, engine=engine, provider=provider, node_cpu=node_cpu, clients=clients)
        rows = run_sweep(request, out=out, echo=typer.echo)
    except LabkitError as exc:
        _fail(exc)
    except KeyboardInterrupt:  # Ctrl-C outside a run's measured window (a cluster start, set-up, load, verify): no partial row
        typer.echo(f"interrupted: the rows measured before it are in {out}; the run being prepared or checked left none", err=True)
        raise typer.Exit(130)
    if rows and not rows[-1].get("complete", True):  # Ctrl-C: the runner kept what it measured, the sweep stopped
        typer.echo(f"interrupted: {len(rows)} rows appended to {out}, the last one partial (complete=False)", err=True)
        raise typer.Exit(130)
    typer.echo(f"{len(rows)} rows appended to {out}")
    unverified = _unverified(rows)
    if unverified:
        typer.secho(f"error: {unverified}", fg=typer.colors.RED, err=True)
        raise typer.Exit(1)


def _unverified(rows: list[dict]) -> str:
    """One sentence when a measured run failed its verification or could not finish it ('' when all passed)."""
    failed = [r for r in rows if r.get("verify_state") == "failed"]
    unfinished = [r for r in rows if r.get("verify_state") == "unfinished"]
    if not failed and not unfinished:
        return ""
    worst = (unfinished or failed)[0]
    where = f"{worst['approach']} at {worst['threads']} threads on {worst['nodes']} node(s)"
    parts = [f"{len(failed)} run(s) failed verification" if failed else "",
             f"{len(unfinished)} run(s) could not finish verifying" if unfinished else ""]
    return (f"{' and '.join(p for p in parts if p)} (rows kept, see verify_state and verify_problems; first: {where}: "
            f"{worst.get('verify_problems') or 'no reason given'})")


@app.command("noise")
def noise_command(
    nodes: int = typer.Option(1, "--nodes", "-n", min=1, max=8, help="Nodes of the cluster the A/A runs measure."),
    threads: int = typer.Option(16, "--threads", "-t", min=1, help="Client threads of every run."),
    operations: int = typer.Option(10000, "--operations", "-o", min=100, help="Transactions per run (about 2 s each on one local node)."),
    repeats: int = typer.Option(5, "--repeats", "-r", min=3, help="Blocks, each a run and its copy (at least 3, for an interval)."),
    node_cpu: float = typer.Option(None, "--node-cpu", help=NODE_CPU_HELP),
    provider: str = typer.Option("auto", "--provider", "-p", help=PROVIDER_HELP),
    out: Path = typer.Option(Path("noise.csv"), "--out", help="Results file (.csv or .parquet); the A/A rows are appended."),
) -> None:
    """Measure this machine's noise floor in a few minutes: YCSB workload A run twice per block (an A/A
    control), blocks repeated; prints how far two runs of the same workload land apart here."""
    from .clusters import check_provider
    from .noise import measure_noise, noise_plan, noise_sentence
    from .results import ResultsStore

    try:
        check_provider(provider)  # node_cpu is checked by the sweep's slot, with every other sweep's
        ResultsStore(out)
        plan = noise_plan(nodes=nodes, threads=threads, operations=operations, repeats=repeats)
        rows, floor = measure_noise(plan, provider=provider, node_cpu=node_cpu, out=out, echo=typer.echo)
    except LabkitError as exc:
        _fail(exc)
    typer.echo(noise_sentence(floor, rows))
    typer.echo(f"{len(rows)} rows appended to {out}")


@app.command("patterns")
def patterns(name: str = typer.Argument("", help="A pattern's name; default: list them all.")) -> None:
    """What each pattern measures: its phases, approaches, engines and settings, and the sizes of its sweeps."""
    from .catalogue import describe, descriptions

    try:
        chosen = [describe(name)] if name else descriptions()
    except LabkitError as exc:
        _fail(exc)
    for p in chosen:
        typer.echo(f"{p.name}: {p.title}")
        typer.echo(f"  phases      {', '.join(p.phases)} (default {p.default_phase})")
        typer.echo(f"  approaches  {', '.join(p.approaches)}")
        typer.echo(f"  engines     {', '.join(p.engines)}")
        profile = getattr(p, "profile", None)
        if profile is not None:  # a profile file: the mix its designs share
            from .profiles.format import filtering_notes, mix_text

            typer.echo(f"  mix         {mix_text(profile)} (operation weight)")

            for note in filtering_notes(profile):
                typer.echo(f"  note        {note}")
        for engine, own in p.engine_approaches.items():
            typer.echo(f"    {engine:<9} runs {', '.join(own)}")
        for s in p.settings:
            where = f" [{'|'.join(s.phases)} only]" if s.phases else ""
            typer.echo(f"  {f'--set {s.name}={s.default}':<28} {s.describe()}: {s.help}{where}")
        if name:
            for profile, sweeps in p.sizes.items():
                for sweep_name, z in sweeps.items():
                    extra = "".join(f" {k}={v}" for k, v in z.settings.items())
                    budget = f" node_cpu={z.node_cpu:g}" if z.node_cpu else ""
                    load = (f", offered {', '.join(f'{t:g}' for t in z.targets)} tx/s" + (f" for {z.target_seconds:g} s each" if z.target_seconds else "")
                            if z.targets else "")
                    typer.echo(f"  {profile:<9} {sweep_name:<12} phase {z.phase}: nodes {list(z.nodes)}, threads {list(z.threads)}, "
                               f"{z.operations} operations{extra}{budget}{load}")
        typer.echo("")


@app.command("check-history")
def check_history_command(
    history: Path = typer.Argument(..., help="A history of register operations, JSON lines (labkit.consistency.history)."),
    model: str = typer.Option("cas-register", "--model", help="register (reads and writes) or cas-register (with compare-and-set)."),
    page: Path = typer.Option(None, "--page", help="Write Porcupine's HTML page of the history and its linearizations here."),
    timeout: float = typer.Option(30.0, "--timeout", help="Seconds before the checker gives up (the result is then Unknown)."),
) -> None:
    """Whether a recorded history is linearizable (Porcupine, built with Go on first use): per key, the smallest failing
    key and the operations no order could place. Exit code 0: linearizable; 1: not; 3: the checker ran out of time."""
    from .consistency import check_history

    try:
        verdict = check_history(history, model, page=page, timeout_s=timeout)
    except LabkitError as exc:
        _fail(exc)
    typer.echo(verdict.text())
    for key in verdict.keys:
        typer.echo(f"  {key.key}: {key.result}, {key.operations} operations"
                   + (f"; stuck after {key.prefix} at: {key.unplaced[0]} (line {key.lines[0]})" if key.unplaced else ""))
    for why, count in verdict.dropped.items():
        typer.echo(f"  left out: {count} {why}")
    if verdict.page is not None:
        typer.echo(f"page: {verdict.page}")
    if not verdict.linearizable:
        raise typer.Exit(1 if verdict.result == "Illegal" else 3)


@app.command("predictions")
def predictions_command(
    paths: list[Path] = typer.Argument(..., help="Notebooks, or folders to search for them (e.g. an nbgrader course's submitted/)."),
    out: Path = typer.Option(None, "--out", help="Write the rows to this CSV file as well."),
) -> None:
    """The predictions and result cards in executed lesson notebooks, one row per card: student (from
    nbgrader's submitted/<student>/ folders), notebook, question, prediction, measured, verdict, and the student's
    explanation where one was kept."""
    import csv

    from .predictions import collected

    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        _fail(ConfigError(f"no such file or folder: {', '.join(missing)}"))
    rows = collected(paths)
    if not rows:
        typer.echo("no result cards found: a card appears once its experiment has run in the notebook")
        return
    for r in rows:
        typer.echo(f"{r['student'] or '-':<12} {r['notebook']:<22} {r['question']:<22} predicted {r['prediction'] if r['prediction'] is not None else 'none'}"
                   f" · measured {r['measured']} · {r['verdict']}" + (f" · why: {r['explanation']}" if r.get("explanation") else ""))
    if out is not None:
        with out.open("w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
        typer.echo(f"{len(rows)} rows written to {out}")


class_app = typer.Typer(help="The class's view: what an instructor shows the room.", no_args_is_help=True)
app.add_typer(class_app, name="class")


@class_app.command("predictions")
def class_predictions_command(
    paths: list[Path] = typer.Argument(..., help="An nbgrader course's submitted/ or autograded/ folder, or folders of notebooks."),
    out: Path = typer.Option(None, "--out", help="Write the per-question summary to this CSV file."),
    html: Path = typer.Option(None, "--html", help="Write one bar chart per question (predicted beside measured) to this HTML file."),
) -> None:
    """Per question, how the class's predictions split, what the students' runs measured, and how many were
    right: for the reveal after a run (peer instruction). Reads the students' saved notebooks only."""
    from .class_view import VERDICTS, class_rows, figure, summary

    try:
        rows = class_rows(paths)
    except ConfigError as exc:
        _fail(exc)
    if rows.empty:
        typer.echo("no result cards found: a card appears once its experiment has run in the student's notebook")
        return
    table = summary(rows)
    for r in table.to_dict("records"):
        typer.echo(f"{r['notebook']} · {r['question']}: {r['text']}\n  {r['students']} students; predicted {r['predicted']}\n"
                   f"  their runs measured {r['measured']}\n  the committed classroom run: {r['classroom_run']}\n  " + ", ".join(f"{v} {r[v]}" for v in VERDICTS))
    if out is not None:
        table.to_csv(out, index=False)
        typer.echo(f"{len(table)} questions written to {out}")
    if html is not None:
        figures = [figure(rows, notebook, question).to_html(full_html=False, include_plotlyjs="cdn" if i == 0 else False)
                   for i, (notebook, question) in enumerate(zip(table.notebook, table.question))]
        html.write_text("<html><head><meta charset='utf-8'><title>The class's predictions</title></head><body>" + "".join(figures) + "</body></html>")
        typer.echo(f"{len(figures)} charts written to {html}")


@app.command("tactics")
def tactics_command(
    runs: list[str] = typer.Argument(None, help="Tactic runs to do (names from the list); none: list the profile's runs."),
    profile: str = typer.Option("quick", "--profile", help="quick (the notebook's sizes) or classroom (the benchmark's)."),
    rate: float = typer.Option(None, "--rate", min=0.1, help="Offered load in transactions/s instead of the run's own."),
    threads: int = typer.Option(None, "--threads", "-t", min=1, help="Requests in flight instead of the run's own."),
    out: Path = typer.Option(Path("tactics.csv"), "--out", help="Results file (.csv or .parquet); one row per run is appended."),
) -> None:
    """Apply a tactic (index, node, replication, budget, consistency) to a local Cassandra cluster while a
    fixed offered load runs; one row per run with the time to effect and the before/during/after figures."""
    from .results import ResultsStore
    from .tactics.scenarios import ScenarioRunner, scenarios

    try:
        chosen = scenarios(profile, runs or None)
        if not runs:
            for p in chosen:
                typer.echo(f"{p.key:<28} {p.make().title} under {p.kind} load of {p.rate:g}/s on {p.nodes} node(s) of {p.node_cpu} core")
            return
        store = ResultsStore(out)
        changes = {k: v for k, v in (("rate", rate), ("threads", threads)) if v is not None}
        with ScenarioRunner(progress=typer.echo) as runner:
            for p in chosen:
                result = runner.run(p, **changes)
                store.append(result.row())
                w = result.windows()
                took = "not confirmed" if result.took_s is None else f"effective after {result.took_s:.1f} s"
                typer.echo(f"{p.key}: {took}; p95 before/during/after {w['before']['p95_ms']} / {w['during']['p95_ms']} / {w['after']['p95_ms']} ms, "
                           f"{w['during']['errors']} failed meanwhile; verify {'ok' if result.result.verification and result.result.verification.ok else 'NOT ok'}"
                           + (f"; tactic error: {result.error}" if result.error else ""))
    except LabkitError as exc:
        _fail(exc)
    typer.echo(f"{len(chosen)} rows appended to {out}")


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        sys.exit(130)


if __name__ == "__main__":
    main()
