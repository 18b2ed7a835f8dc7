"""A JupyterHub for a room of learners: one machine, one command (`make hub`), no container.

The standard small-hub setup (hub/README.md): JupyterHub from PyPI, configurable-http-proxy from
npm, local processes (LocalProcessSpawner: each learner's server runs as a local user of that
name), and a shared password the instructor writes on the board (JupyterHub's own
SharedPasswordAuthenticator). A learner picks a user name and types the shared password; on the
first login the hub creates that local user (group ``course-learners``, home under /home) and
copies the course into ~/course, where JupyterLab opens on module 00.

Per learner: an address-space limit on every process (HUB_MEM_LIMIT, the kernel refuses
allocations past it), one BLAS/OpenMP thread and one inductor compile thread (HUB_THREADS), so a
room of learners shares the cores instead of each kernel taking them all.

Settings, read from the environment by `make hub` (defaults in brackets):
  HUB_PASSWORD [required]    the shared password learners type
  HUB_ADMIN_PASSWORD [unset] the instructor's password, for the user HUB_ADMIN [instructor]
  HUB_IP [127.0.0.1]         0.0.0.0 to serve the room's network (put TLS in front: README)
  HUB_PORT [8000]            where learners point their browsers
  HUB_MEM_LIMIT [4G]         per process; HUB_THREADS [1]: OMP_NUM_THREADS and inductor's compile threads
  HUB_STATE [.hub/state]     the hub's database and cookie secret
  HUB_HOME_ROOT [/home]      where learners' home folders go
Run as root (the hub starts each learner's server as that learner).
"""

import grp
import os
import pwd
import re
import resource
import subprocess
import sys
from pathlib import Path

from jupyterhub.authenticators.shared import SharedPasswordAuthenticator
from jupyterhub.spawner import LocalProcessSpawner

c = get_config()  # noqa: F821 (JupyterHub's config loader provides it)

REPO = Path(__file__).resolve().parent.parent
HUB_DIR = Path(os.environ.get("HUB_DIR", REPO / ".hub"))
VENV = HUB_DIR / "venv"
STATE = Path(os.environ.get("HUB_STATE", HUB_DIR / "state"))
STATE.mkdir(parents=True, exist_ok=True)
GROUP = "course-learners"
HOME_ROOT = Path(os.environ.get("HUB_HOME_ROOT", "/home"))
THREADS = os.environ.get("HUB_THREADS", "1")
# Local user names the hub may create: lower-case letters and digits, a letter first.
USERNAME = r"^[a-z][a-z0-9]{1,19}$"


def parse_bytes(text: str) -> int:
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([KMGT]?)", text.strip().upper())
    if not m:
        raise ValueError(f"HUB_MEM_LIMIT={text!r}: write e.g. 4G or 2500M")
    return int(float(m.group(1)) * 1024 ** "_KMGT".index(m.group(2) or "_"))


def ensure_learner(name: str) -> pwd.struct_passwd:
    """The local user ``name`` in the course's group, created on first login."""
    try:
        grp.getgrnam(GROUP)
    except KeyError:
        subprocess.run(["groupadd", "--system", GROUP], check=True)
    try:
        return pwd.getpwnam(name)
    except KeyError:
        subprocess.run(
            ["useradd", "--create-home", "--base-dir", str(HOME_ROOT), "--gid", GROUP, "--shell", "/bin/bash", name],
            check=True,
        )
        return pwd.getpwnam(name)


class RoomAuthenticator(SharedPasswordAuthenticator):
    """The shared password, for learner names only: never an existing account outside the course's
    group (root, a service, the instructor's own login), whatever the password."""

    def check_blocked_users(self, username, authentication=None):
        try:
            account = pwd.getpwnam(username)
        except KeyError:
            pass  # a new learner: created on first spawn
        else:
            try:
                if account.pw_gid != grp.getgrnam(GROUP).gr_gid:
                    return False
            except KeyError:  # no learner was ever created: every existing account is someone else's
                return False
        return super().check_blocked_users(username, authentication)


class RoomSpawner(LocalProcessSpawner):
    """A local process per learner, with an address-space limit on it and on its kernels."""

    def make_preexec_fn(self, name):
        switch_user = super().make_preexec_fn(name)
        limit = self.mem_limit

        def preexec():
            if limit:
                resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
            switch_user()

        return preexec


def give_course(spawner):
    """Before each start: the learner's account, and their own copy of the course in ~/course
    (scripts/workcopy.py: new lessons are added, a learner's file is never overwritten)."""
    account = ensure_learner(spawner.user.name)
    course = Path(account.pw_dir) / "course"
    subprocess.run([sys.executable, str(REPO / "scripts" / "workcopy.py"), "--dest", str(course)], check=True)
    subprocess.run(["chown", "-R", f"{account.pw_uid}:{account.pw_gid}", str(course)], check=True)


def unreachable_by_learners(path: Path) -> Path | None:
    """The first folder on the way to ``path`` (symbolic links followed) that other users may not
    enter, or None. A venv made from a Python under /root (pyenv's, say) links to it: learners'
    servers would fail with 'Permission denied'."""
    real = path.resolve()
    for folder in [*reversed(real.parents)]:
        if not os.stat(folder).st_mode & 0o001:
            return folder
    return None


for needed in (VENV / "bin" / "python", VENV / "bin" / "jupyterhub-singleuser", REPO / "torchcourse"):
    blocked = unreachable_by_learners(needed)
    if blocked:
        sys.exit(
            f"Learners cannot reach {needed} ({blocked} is closed to other users): make the hub's venv "
            "from a system-wide Python (make hub-install HUB_PYTHON=/usr/bin/python3) and keep the course "
            "in a folder every user may enter."
        )

password = os.environ.get("HUB_PASSWORD", "")
if not password:
    sys.exit("Set HUB_PASSWORD to the password learners will type (make hub HUB_PASSWORD=...).")

c.JupyterHub.ip = os.environ.get("HUB_IP", "127.0.0.1")
c.JupyterHub.port = int(os.environ.get("HUB_PORT", "8000"))
c.JupyterHub.hub_port = int(os.environ.get("HUB_API_PORT", "8081"))
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{int(os.environ.get('HUB_PROXY_API_PORT', '8001'))}"
c.ConfigurableHTTPProxy.command = [str(HUB_DIR / "node_modules" / ".bin" / "configurable-http-proxy")]
c.JupyterHub.db_url = f"sqlite:///{STATE / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(STATE / "jupyterhub_cookie_secret")
c.ConfigurableHTTPProxy.pid_file = str(STATE / "proxy.pid")

c.JupyterHub.authenticator_class = RoomAuthenticator
c.SharedPasswordAuthenticator.user_password = password
c.Authenticator.allow_all = True
c.Authenticator.username_pattern = USERNAME
admin_password = os.environ.get("HUB_ADMIN_PASSWORD", "")
if admin_password:
    admin = os.environ.get("HUB_ADMIN", "instructor")
    c.SharedPasswordAuthenticator.admin_password = admin_password
    c.Authenticator.admin_users = {admin}

c.JupyterHub.spawner_class = RoomSpawner
c.Spawner.cmd = [str(VENV / "bin" / "jupyterhub-singleuser")]
c.Spawner.pre_spawn_hook = give_course
c.Spawner.notebook_dir = "~/course"
c.Spawner.default_url = "/lab/tree/notebooks/00_start_here.ipynb"
c.Spawner.mem_limit = parse_bytes(os.environ.get("HUB_MEM_LIMIT", "4G"))  # also exported as MEM_LIMIT
c.Spawner.http_timeout = 120  # a cold start of JupyterLab on a busy machine
c.Spawner.start_timeout = 120
c.Spawner.environment = {
    "OMP_NUM_THREADS": THREADS,
    "MKL_NUM_THREADS": THREADS,
    "OPENBLAS_NUM_THREADS": THREADS,
    "TORCHINDUCTOR_COMPILE_THREADS": THREADS,
    # the learner's progress file (torchcourse.progress), one per home: the instructor collects
    # /home/*/.torchcourse/progress.json
    "TORCHCOURSE_PROGRESS": lambda spawner: str(
        Path(ensure_learner(spawner.user.name).pw_dir) / ".torchcourse" / "progress.json"
    ),
    "PATH": f"{VENV / 'bin'}:/usr/local/bin:/usr/bin:/bin",
}
