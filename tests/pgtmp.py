#!/usr/bin/env python3
"""pgtmp: a throw-away PostgreSQL 15 that a test starts itself, and removes when it is done.

TempPostgres makes a new directory under the system's temporary directory holding the data
directory (data/), the server's log (postgres.log) and its Unix socket; the server listens on
that socket only (listen_addresses is empty), with fsync on and small shared buffers, and has a
login role `hokito` owning a database `hokito`, which may create databases of its own (a test's
fresh stores: CREATEDB). `uri` is the libpq URI of that database,
`psql()` runs SQL as the superuser `postgres`, `stop('immediate')` is a crash of the server's
processes, and `start()` again recovers the same data directory. `close()` (also at exit, on
SIGTERM and on leaving a `with` block) stops the server and removes the directory.

PostgreSQL refuses to run as root: when the tests run as root (CI on a fresh Debian 12), initdb,
pg_ctl and the server run as `nobody` ($HOKITO_PG_USER names another user) and the directory is
chowned to it. The switch is subprocess's user=/group=/extra_groups=[], the setgroups, setgid
and setuid calls that `setpriv --clear-groups` makes, without runuser's PAM session (which needs
a working PAM stack and logs a session per command). Clients run as the caller: root reaches the
socket in nobody's 0700 directory; a normal user owns the directory and runs everything itself.

initdb costs three times what a start costs, so the first instance of a run initializes a
template (initdb, the role and the database, a clean shutdown) in $HOKITO_PG_TEMPLATE, or else
in a 0700 directory of the caller's under the temporary directory, keyed by the initdb version;
each instance then copies it (cp -a). A lock makes parallel tests build it once.

A test killed with SIGKILL cannot clean up: the next instance started on the machine stops the
servers of instances whose owning process is gone and removes their directories.

    python3 tests/pgtmp.py run -- CMD ARGS...   # CMD with HOKITO_TEST_PG_URI, PGHOST, ... set
    python3 tests/pgtmp.py shell                # one for a developer, until Ctrl-C

Python 3 standard library only. Every wait is bounded.
"""
import atexit
import csv
import fcntl
import glob
import hashlib
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

USER = "hokito"  # the login role and its database
SUPERUSER = "postgres"
DEFAULT_BINDIR = "/usr/lib/postgresql/15/bin"
PREFIX = "hokito-pg."  # instance directories: PREFIX + random
RECIPE = "2"  # bump when the template's contents change (a new key, a new template)
NULL = "\x1fNULL\x1f"  # what psql prints for an SQL NULL (psql() returns None)
TIMEOUT = 60  # seconds for any one command
MAX_SOCKET_PATH = 100  # sun_path holds 107 bytes; the socket is DIR/.s.PGSQL.PORT

SETTINGS = {
    "listen_addresses": "",
    "fsync": True,
    "synchronous_commit": True,
    "full_page_writes": True,
    "shared_buffers": "16MB",
    "max_connections": 100,
    "logging_collector": False,
    "log_line_prefix": "%m [%p] %q%a@%d ",
}

_LIVE = set()  # started instances not yet closed, for the exit handlers


class PgError(Exception):
    """A command of the server's failed; the message carries its output."""


def bindir():
    """The directory of initdb, pg_ctl and psql: $HOKITO_PG_BINDIR, pg_config --bindir, or
    DEFAULT_BINDIR, the first that holds initdb."""
    candidates = [os.environ.get("HOKITO_PG_BINDIR")]
    try:
        r = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True,
                           timeout=TIMEOUT)
        candidates.append(r.stdout.strip() if r.returncode == 0 else None)
    except OSError:
        pass
    candidates.append(DEFAULT_BINDIR)
    for d in candidates:
        if d and os.access(os.path.join(d, "initdb"), os.X_OK):
            return d
    raise PgError("no initdb in %s (install postgresql-15)" % ", ".join(c for c in candidates if c))


def _server_ids():
    """(uid, gid) the server runs as when we are root, None when it runs as ourselves."""
    if os.geteuid() != 0:
        return None
    pw = pwd.getpwnam(os.environ.get("HOKITO_PG_USER", "nobody"))
    if pw.pw_uid == 0:
        raise PgError("HOKITO_PG_USER must not be root: PostgreSQL refuses to run as root")
    return pw.pw_uid, pw.pw_gid


def _clean_env():
    """Our environment without PG* variables, which would redirect our own commands."""
    return {k: v for k, v in os.environ.items() if not k.startswith("PG")}


def _reachable(path, ids):
    """Whether the server's user can reach (search) every directory down to path."""
    if ids is None:
        return True
    uid, gid = ids
    p = os.path.abspath(path)
    while True:
        st = os.stat(p)
        if st.st_uid == uid:
            ok = st.st_mode & 0o100
        elif st.st_gid == gid:
            ok = st.st_mode & 0o010
        else:
            ok = st.st_mode & 0o001
        if not ok:
            return False
        if p == "/":
            return True
        p = os.path.dirname(p)


def _base_dir(ids, port):
    """Where instance directories go: the temporary directory, or /tmp when the server's user
    cannot reach it or the socket's path would be too long there."""
    base = tempfile.gettempdir()
    longest = len(base) + len("/" + PREFIX + "xxxxxxxx/.s.PGSQL.%d" % port)
    if longest > MAX_SOCKET_PATH or not _reachable(base, ids):
        base = "/tmp"
    return base


def _start_time(pid):
    """The start time of process pid (clock ticks since boot), or None if it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rpartition(")")[2].split()[19]
    except (OSError, IndexError):
        return None


def _chown_tree(path, ids):
    """chown -R path to ids (when we are root)."""
    if ids is None:
        return
    os.chown(path, *ids)
    for root, dirs, files in os.walk(path):
        for name in dirs + files:
            os.chown(os.path.join(root, name), *ids, follow_symlinks=False)


def _conf_value(v):
    """A postgresql.conf value: on/off, a number, or a quoted string."""
    if isinstance(v, bool):
        return "on" if v else "off"
    if isinstance(v, int):
        return str(v)
    return "'%s'" % str(v).replace("\\", "\\\\").replace("'", "''")


def _kill_postmaster(data, timeout=10):
    """Stop the server of data directory data without pg_ctl: SIGQUIT (an immediate shutdown),
    SIGKILL if it is still there after timeout. Only a process whose working directory is data
    is signalled (the postmaster and its children chdir there), never a recycled pid."""
    try:
        with open(os.path.join(data, "postmaster.pid")) as f:
            pid = int(f.readline())
    except (OSError, ValueError):
        return
    real = os.path.realpath(data)

    def ours():
        try:
            return os.readlink("/proc/%d/cwd" % pid) == real
        except OSError:
            return False

    for sig, wait in ((signal.SIGQUIT, timeout), (signal.SIGKILL, timeout)):
        if not ours():
            return
        try:
            os.kill(pid, sig)
        except OSError:
            return
        end = time.monotonic() + wait
        while ours() and time.monotonic() < end:
            time.sleep(0.05)


def sweep(base=None):
    """Stop and remove instances whose owning process has gone (killed before close())."""
    ids = _server_ids()
    mine = {os.geteuid()} | ({ids[0]} if ids else set())
    for d in glob.glob(os.path.join(base or _base_dir(ids, 5432), PREFIX + "*")):
        try:
            st = os.lstat(d)
            if st.st_uid not in mine or not os.path.isdir(d) or os.path.islink(d):
                continue
            with open(os.path.join(d, "owner")) as f:
                pid, started = f.read().split()
            if _start_time(int(pid)) == started:
                continue
        except FileNotFoundError:  # no owner file: being made right now, or killed then
            try:
                if time.time() - os.lstat(d).st_mtime < 60:
                    continue
            except OSError:
                continue
        except (OSError, ValueError):
            continue
        _kill_postmaster(os.path.join(d, "data"))
        shutil.rmtree(d, ignore_errors=True)


def _check_private(path):
    """path is a directory of ours, not a link, that nobody else can write or read."""
    st = os.lstat(path)
    if not os.path.isdir(path) or os.path.islink(path) or st.st_uid != os.geteuid() \
            or st.st_mode & 0o077:
        raise PgError("%s: not a private directory of ours (remove it, or set "
                      "HOKITO_PG_TEMPLATE to another directory)" % path)


class TempPostgres:
    """One throw-away server. start() makes and starts it, stop() stops it (the data stays),
    start() again starts it on the same data, close() stops it and removes everything.

    password: the role hokito's password (then the URI carries it and the server asks for it;
    the superuser needs none). settings: more postgresql.conf settings, {name: value}.
    template: copy the run's template (True) or run initdb for this instance (False)."""

    def __init__(self, password=None, settings=None, template=True, port=5432):
        self.bindir = bindir()
        self.psql_path = os.path.join(self.bindir, "psql")
        self.password = password
        self.settings = dict(SETTINGS, **(settings or {}))
        self.template = template
        self.port = port
        self.ids = _server_ids()
        self.dir = None  # the instance's directory and socket directory, None until start()
        self.data = None  # its data directory
        self.logfile = None
        self._pending = []  # (database, SQL) to run once the server is up, in order

    # --- what clients need

    @property
    def host(self):
        """The socket directory (libpq's host)."""
        return self.dir

    @property
    def uri(self):
        """libpq URI of database hokito as role hokito: the socket directory in the host query
        parameter (percent-encoded as libpq decodes it), the port beside it."""
        auth = USER
        if self.password is not None:
            auth += ":" + urllib.parse.quote(self.password, safe="")
        return "postgresql://%s@/%s?host=%s&port=%d" % (
            auth, USER, urllib.parse.quote(self.dir, safe="/"), self.port)

    def env(self):
        """The variables `run` gives its command: HOKITO_TEST_PG_URI and libpq's PG*."""
        e = {"HOKITO_TEST_PG_URI": self.uri, "PGHOST": self.dir, "PGPORT": str(self.port),
             "PGUSER": USER, "PGDATABASE": USER}
        if self.password is not None:
            e["PGPASSWORD"] = self.password
        return e

    def log(self):
        """The server's log so far ('' before the first start)."""
        try:
            with open(self.logfile, errors="replace") as f:
                return f.read()
        except (OSError, TypeError):
            return ""

    # --- running commands

    def _run(self, cmd, server=False, timeout=TIMEOUT, what=None):
        """Run cmd (as the server's user when server), return its stdout; PgError when it
        fails or outlives timeout."""
        kw = {}
        if server and self.ids:
            kw = {"user": self.ids[0], "group": self.ids[1], "extra_groups": []}
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                               cwd=self.dir or "/", env=_clean_env(), stdin=subprocess.DEVNULL,
                               **kw)
        except subprocess.TimeoutExpired as e:
            raise PgError("%s: no answer after %s s" % (what or cmd[0], timeout)) from e
        if r.returncode != 0:
            raise PgError("%s failed (exit %d): %s%s" % (what or " ".join(cmd), r.returncode,
                                                        r.stdout, r.stderr))
        return r.stdout

    def _pg_ctl(self, *args, timeout=TIMEOUT):
        return self._run([os.path.join(self.bindir, "pg_ctl"), "-D", self.data] + list(args),
                         server=True, timeout=timeout + 30, what="pg_ctl " + args[0])

    def psql(self, sql, dbname=USER, timeout=TIMEOUT):
        """Run sql as the superuser in dbname over the socket; returns the rows of every
        statement that returns rows, in order, as tuples of str (None for NULL). An SQL error
        raises PgError."""
        out = self._run([self.psql_path, "-X", "-w", "-q", "-v", "ON_ERROR_STOP=1", "--csv", "-t",
                         "-P", "null=" + NULL, "-h", self.dir, "-p", str(self.port),
                         "-U", SUPERUSER, "-d", dbname, "-c", sql], timeout=timeout,
                        what="psql")
        return [tuple(None if v == NULL else v for v in row)
                for row in csv.reader(out.splitlines(keepends=True))]

    # --- life cycle

    def running(self):
        """Whether the server is up (pg_ctl status)."""
        if not self.data:
            return False
        try:
            self._pg_ctl("status")
            return True
        except PgError:
            return False

    def start(self):
        """Make the instance (the first time) and start the server; returns self. The server
        accepts connections when this returns."""
        if self.dir is None:
            self._make()
        elif self.running():
            return self
        try:
            self._pg_ctl("start", "-w", "-t", str(TIMEOUT), "-l", self.logfile)
        except PgError as e:
            raise PgError("%s\n--- %s:\n%s" % (e, self.logfile, self.log()[-4000:])) from None
        while self._pending:
            dbname, sql = self._pending[0]
            self.psql(sql, dbname=dbname)
            self._pending.pop(0)
        return self

    def stop(self, mode="fast"):
        """Stop the server: 'fast' (clients disconnected, a clean shutdown), 'immediate' (every
        process quits at once, as in a crash: the next start recovers from the WAL) or 'smart'.
        Returns when its processes are gone; nothing happens when it is not running."""
        if mode not in ("smart", "fast", "immediate"):
            raise ValueError("stop mode: smart, fast or immediate, not %r" % mode)
        if self.running():
            self._pg_ctl("stop", "-w", "-t", str(TIMEOUT), "-m", mode)

    def restart(self, mode="fast"):
        """stop(mode), then start() on the same data directory."""
        self.stop(mode)
        return self.start()

    def terminate(self, application_name=None):
        """End every session of database hokito (or only those whose application_name is
        application_name) but ours, waiting up to 5 s for each; returns how many ended."""
        where = ""
        if application_name is not None:
            where = " AND application_name = '%s'" % application_name.replace("'", "''")
        rows = self.psql("SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity "
                         "WHERE datname = '%s' AND pid <> pg_backend_pid()%s" % (USER, where))
        return sum(1 for (ended,) in rows if ended == "t")

    def close(self):
        """Stop the server (immediately: nothing in it is kept) and remove the directory.
        Safe to call twice, after a failed start, or from an exit handler."""
        _LIVE.discard(self)
        if self.dir is None:
            return
        try:
            if os.path.exists(os.path.join(self.data, "postmaster.pid")):
                self._pg_ctl("stop", "-w", "-t", "10", "-m", "immediate", timeout=10)
        except PgError:
            pass
        _kill_postmaster(self.data)  # when pg_ctl failed; nothing to do otherwise
        shutil.rmtree(self.dir, ignore_errors=True)
        self.dir = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()

    # --- making an instance

    def _make(self):
        """A new directory with a data directory in it, ready to start."""
        base = _base_dir(self.ids, self.port)
        sweep(base)
        _register_exit_handlers()
        self.dir = tempfile.mkdtemp(prefix=PREFIX, dir=base)
        _LIVE.add(self)
        self.data = os.path.join(self.dir, "data")
        self.logfile = os.path.join(self.dir, "postgres.log")
        with open(os.path.join(self.dir, "owner"), "w") as f:
            f.write("%d %s\n" % (os.getpid(), _start_time(os.getpid())))
        if self.ids:
            os.chown(self.dir, *self.ids)
        try:
            if self.template:
                tpl = _template(self.bindir, self.ids)
                self._run(["cp", "-a", "--", tpl, self.data], what="cp -a " + tpl)
                _chown_tree(self.data, self.ids)
            else:
                self._initdb()
            if self.password is not None:
                self._pending.append((USER, "ALTER ROLE %s PASSWORD '%s'" % (
                    USER, self.password.replace("'", "''"))))
            self._configure()
        except BaseException:
            self.close()
            raise

    def _initdb(self):
        """initdb into self.data; the role and its database are made at the first start."""
        self._run([os.path.join(self.bindir, "initdb"), "-D", self.data, "-U", SUPERUSER,
                   "-A", "trust", "-E", "UTF8", "--locale=C", "--no-instructions"],
                  server=True, timeout=120, what="initdb")
        with open(os.path.join(self.data, "postgresql.conf"), "a") as f:
            f.write("\ninclude_if_exists = 'hokito.conf'\n")
        self._pending += [("postgres", "CREATE ROLE %s LOGIN CREATEDB" % USER),
                          ("postgres", "CREATE DATABASE %s OWNER %s" % (USER, USER))]

    def _configure(self):
        """This instance's settings (data/hokito.conf, included by postgresql.conf) and who
        may log in how (pg_hba.conf: the superuser by trust, hokito by password if it has one)."""
        s = dict(self.settings, port=self.port, unix_socket_directories=self.dir)
        conf = "".join("%s = %s\n" % (k, _conf_value(v)) for k, v in s.items())
        method = "trust" if self.password is None else "scram-sha-256"
        hba = "local all %s trust\nlocal all all %s\n" % (SUPERUSER, method)
        for name, text in (("hokito.conf", conf), ("pg_hba.conf", hba)):
            path = os.path.join(self.data, name)
            with open(path, "w") as f:
                f.write(text)
            os.chmod(path, 0o600)
            if self.ids:
                os.chown(path, *self.ids)


def _template(bin_dir, ids):
    """The path of this run's template data directory, built now if there is none: a fresh
    instance's data after initdb, the role, the database and a clean shutdown. Owned by us
    (copies are chowned to the server's user). Built under a lock, renamed into place whole."""
    version = subprocess.run([os.path.join(bin_dir, "initdb"), "--version"], capture_output=True,
                             text=True, timeout=TIMEOUT).stdout.strip()
    key = hashlib.sha256(("%s\n%s\n%s" % (version, RECIPE, bin_dir)).encode()).hexdigest()[:16]
    cache = os.environ.get("HOKITO_PG_TEMPLATE")
    if cache:
        os.makedirs(cache, mode=0o700, exist_ok=True)
    else:
        cache = os.path.join(tempfile.gettempdir(), "hokito-pg-template-%d" % os.geteuid())
        try:
            os.mkdir(cache, 0o700)
        except FileExistsError:
            pass
        _check_private(cache)
    path = os.path.join(cache, "pg15-" + key)
    if os.path.isdir(path):
        return path
    with open(os.path.join(cache, "lock"), "w") as lock:
        end = time.monotonic() + 180
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > end:
                    raise PgError("%s/lock: held for 180 s" % cache) from None
                time.sleep(0.05)
        if os.path.isdir(path):  # another process built it while we waited
            return path
        for old in glob.glob(os.path.join(cache, "building.*")):  # a killed builder's
            shutil.rmtree(old, ignore_errors=True)
        builder = TempPostgres(template=False)
        try:
            builder.start()  # initdb, role and database
            builder.stop("fast")
            staging = tempfile.mkdtemp(prefix="building.", dir=cache)
            os.rmdir(staging)
            subprocess.run(["cp", "-a", "--", builder.data, staging], check=True,
                           timeout=TIMEOUT)
            for name in ("hokito.conf", "postmaster.opts"):
                try:
                    os.unlink(os.path.join(staging, name))
                except FileNotFoundError:
                    pass
            if ids:
                _chown_tree(staging, (os.geteuid(), os.getegid()))
            os.rename(staging, path)
        finally:
            builder.close()
    return path


_handlers_set = False


def _register_exit_handlers():
    """close() every live instance at exit, and turn SIGTERM (meson's timeout, then SIGKILL
    0.5 s later) into an exit so that it does so, unless someone else handles SIGTERM."""
    global _handlers_set
    if _handlers_set:
        return
    _handlers_set = True
    atexit.register(lambda: [pg.close() for pg in list(_LIVE)])
    if threading.current_thread() is threading.main_thread() and \
            signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
        signal.signal(signal.SIGTERM, lambda sig, frame: sys.exit(128 + sig))


# --- the command line

class _Signalled(Exception):
    pass


def _on_signal(child):
    """Handler for SIGINT/SIGTERM/SIGHUP: pass the signal on to child, then unwind."""
    def handler(sig, frame):
        if child and child.poll() is None:
            child.send_signal(sig)
        raise _Signalled(sig)
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, handler)


def _main(argv):
    usage = ("usage: pgtmp.py run [--password PW] -- CMD [ARGS...]\n"
             "       pgtmp.py shell [--password PW]\n")
    if not argv or argv[0] not in ("run", "shell"):
        sys.stderr.write(usage)
        return 2
    what, rest = argv[0], argv[1:]
    password = None
    if rest[:1] == ["--password"] and len(rest) >= 2:
        password, rest = rest[1], rest[2:]
    if what == "run":
        if rest[:1] != ["--"] or len(rest) < 2:
            sys.stderr.write(usage)
            return 2
        rest = rest[1:]
    elif rest:
        sys.stderr.write(usage)
        return 2
    pg = TempPostgres(password=password)
    child = None
    try:
        _on_signal(None)
        pg.start()
        if what == "shell":
            print("# a throw-away PostgreSQL in %s (log: %s)" % (pg.dir, pg.logfile))
            for k, v in pg.env().items():
                print("export %s='%s'" % (k, v))
            print("# psql '%s'\n# Ctrl-C stops it and removes the directory" % pg.uri,
                  flush=True)
            while True:
                time.sleep(3600)
        try:
            child = subprocess.Popen(rest, env=dict(os.environ, **pg.env()))
        except OSError as e:
            sys.stderr.write("pgtmp: %s: %s\n" % (rest[0], e.strerror))
            return 127
        _on_signal(child)
        rc = child.wait()
        return rc if rc >= 0 else 128 - rc
    except _Signalled as s:
        return 128 + s.args[0]
    except PgError as e:
        sys.stderr.write("pgtmp: %s\n" % e)
        return 1
    finally:
        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(s, signal.SIG_IGN)
        pg.close()
        if child and child.poll() is None:
            try:
                child.wait(timeout=5)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
