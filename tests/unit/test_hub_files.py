"""The files a JupyterHub or Binder build reads (repo2docker conventions): the build steps repo2docker
renders from them (no Docker engine needed for that), postBuild itself, and JupyterLab opening on the
first notebook with the configuration postBuild installs."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


@pytest.fixture(scope="module")
def dockerfile(tmp_path_factory) -> str:
    """What repo2docker would build from a copy of the repository's tracked files."""
    src = tmp_path_factory.mktemp("repo")
    files = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout.split()
    for name in files:
        target = src / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, target)
    for extra in ("postBuild", "hub/jupyter_server_config.py"):  # the files under test, committed or not yet
        (src / extra).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / extra, src / extra)
    r = subprocess.run([str(BIN / "repo2docker"), "--no-build", "--no-run", "--debug", str(src)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout


def test_repo2docker_uses_the_conda_environment_and_runs_postbuild(dockerfile):
    assert 'env update -p ${NB_PYTHON_PREFIX} --file "environment.yml"' in dockerfile
    assert "postBuild" in dockerfile  # the RUN step that executes it, after the environment
    assert dockerfile.index("environment.yml") < dockerfile.rindex("postBuild")


def test_environment_has_what_the_embedded_cluster_needs():
    env = (REPO / "environment.yml").read_text()
    for needed in ("python=3.11", "openjdk=17", "maven", "jupyterlab", "- -e ."):
        assert needed in env, needed


def test_postbuild_is_an_executable_script_that_provisions_cassandra():
    post = REPO / "postBuild"
    assert post.stat().st_mode & 0o111
    subprocess.run(["bash", "-n", str(post)], check=True)
    text = post.read_text()
    assert "labkit provision cassandra" in text and "set -euo pipefail" in text


def test_postbuild_runs_here(tmp_path):
    """The same script against this machine's cache (already provisioned by `make test`'s cluster tests or
    provisioned now), in a copy of the files it touches (it removes the solutions from the image it builds)
    and with HOME pointing elsewhere so the config lands in a scratch directory."""
    image = tmp_path / "image"
    image.mkdir()
    for name in ("postBuild", "hub", "solutions", "exercises", "notebooks"):
        (shutil.copytree if (REPO / name).is_dir() else shutil.copy2)(REPO / name, image / name)
    home = tmp_path / "home"
    home.mkdir()
    env = {"PATH": f"{BIN}:/usr/bin:/bin", "HOME": str(home), "LABKIT_HOME": str(Path.home() / ".cache" / "labkit")}
    r = subprocess.run(["bash", str(image / "postBuild")], env=env, capture_output=True, text=True, timeout=1800)
    assert r.returncode == 0, r.stdout[-1500:] + r.stderr[-1500:]
    assert "jars ready" in r.stdout
    assert (home / ".jupyter" / "jupyter_server_config.py").read_text() == (REPO / "hub" / "jupyter_server_config.py").read_text()
    assert not (image / "solutions").exists()  # students' image: no answers
    assert sorted(p.name for p in (image / "exercises").glob("*.ipynb")) == sorted(p.name for p in (REPO / "exercises").glob("*.ipynb"))
    assert (image / "notebooks" / "00_getting_started.ipynb").exists()
    assert (REPO / "solutions").is_dir()  # the repository keeps them


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.full  # full tier: starts JupyterLab (19 s)
def test_jupyterlab_opens_on_the_first_notebook(tmp_path):
    (tmp_path / ".jupyter").mkdir()
    shutil.copy2(REPO / "hub" / "jupyter_server_config.py", tmp_path / ".jupyter" / "jupyter_server_config.py")
    port = _free_port()
    env = {"PATH": f"{BIN}:/usr/bin:/bin", "HOME": str(tmp_path), "JUPYTER_CONFIG_DIR": str(tmp_path / ".jupyter")}
    server = subprocess.Popen([str(BIN / "jupyter"), "lab", "--no-browser", "--allow-root", f"--port={port}", "--ip=127.0.0.1",
                               "--ServerApp.token=", "--ServerApp.password=", f"--ServerApp.root_dir={REPO}"],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        location = None
        deadline = time.monotonic() + 120  # a loaded 2-core machine (a cluster beside it) can take a minute to start JupyterLab
        opener = urllib.request.build_opener(_NoRedirect)
        while time.monotonic() < deadline and location is None:
            try:
                opener.open(f"http://127.0.0.1:{port}/", timeout=5)
            except urllib.error.HTTPError as exc:
                if exc.code in (301, 302, 303, 307):
                    location = exc.headers["Location"]
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.5)
        assert location is not None, "JupyterLab did not answer"
        assert location.split("?")[0].endswith("/lab/tree/notebooks/00_getting_started.ipynb"), location  # without the config: /lab
        assert (REPO / "notebooks" / "00_getting_started.ipynb").exists()
    finally:  # stopped by its PID whatever happened, so no JupyterLab outlives the test
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=30)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None
