"""Django settings for clusterviz.

Every setting has an embedded default for the single-process classroom setup
(SQLite, in-memory channel layer) and can be overridden from the environment.
"""

import os
import tempfile
from pathlib import Path
from typing import Any

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    """Read a boolean environment variable (1/true/yes/on)."""
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in ("1", "true", "yes", "on")


DEBUG = env_bool("DJANGO_DEBUG", True)
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise RuntimeError("DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is off")
    SECRET_KEY = "insecure-development-key-only-for-the-embedded-default"

ALLOWED_HOSTS = os.environ.get("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost,testserver").split(",")

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",
    "clusterviz.store",
    "clusterviz.api",
    "clusterviz.sim",
    "clusterviz.web",
    "clusterviz.classroom",
]

MIDDLEWARE = [
    # Outermost: a database outage in any layer below answers 503 with Retry-After, not 500.
    "clusterviz.api.outage.DatabaseOutageMiddleware",
    # kubectl's requests (no cookies) go from here straight to the access check and the API.
    "clusterviz.classroom.middleware.ApiClientMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "clusterviz.middleware.StaticFilesMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Who may read or write /c/<cluster>/..., and how fast they may write.
    "clusterviz.classroom.middleware.ClusterAccessMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

# kubectl never adds a trailing slash, and a redirect would turn its POST into a GET.
APPEND_SLASH = False

ROOT_URLCONF = "clusterviz.urls"
ASGI_APPLICATION = "clusterviz.asgi.application"
WSGI_APPLICATION = None

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
            ],
        },
    },
]



def database(url: str) -> dict[str, Any]:
    """The Django database settings for a ``DATABASE_URL``."""
    db: dict[str, Any] = dict(dj_database_url.parse(url, conn_max_age=0))
    if db["ENGINE"] == "django.db.backends.sqlite3":
        # IMMEDIATE transactions take the write lock up front, so concurrent writers
        # queue on the busy timeout instead of failing with "database is locked".
        db["OPTIONS"] = {
            "transaction_mode": "IMMEDIATE",
            "timeout": 30,
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
        # A file (not :memory:) so worker threads share it; one per test process so parallel runs don't collide.
        db["TEST"] = {"NAME": str(Path(tempfile.gettempdir()) / f"clusterviz-test-{os.getpid()}.sqlite3")}
    else:
        # A PostgreSQL server that does not answer fails a request within seconds (503), rather than hanging it.
        # Each request's ORM queries run in a thread of its own, which would open (and close) a connection of
        # its own: a pool keeps them. The store's threads hold one each for good (threads.THREADS + 1).
        # The store's statements (clusterviz.store.kv) are prepared by the connection from their fifth use on;
        # Django's own queries are bound on the client, which never prepares.
        # An object's JSON is mostly over the 2 kB from which PostgreSQL compresses a row: lz4 compresses one
        # a few times faster than the default pglz, which took about a third of the server's CPU on writes.
        server = {
            "synchronous_commit": os.environ.get("CLUSTERVIZ_PG_SYNCHRONOUS_COMMIT", "on"),
            "default_toast_compression": os.environ.get("CLUSTERVIZ_PG_TOAST_COMPRESSION", "lz4"),
        }
        db["OPTIONS"] = {
            "connect_timeout": 5,
            "pool": {"min_size": 2, "max_size": 24, "timeout": 5},
            "prepare_threshold": 5,
            "options": " ".join(f"-c {name}={value}" for name, value in server.items()),
        }
        # One per test process, as for SQLite above: two runs on one server would drop each other's.
        db["TEST"] = {"NAME": f"test_{db['NAME']}_{os.getpid()}"}
    return db


def channel_layers(redis_url: str) -> dict[str, Any]:
    """channels_redis at ``redis_url`` (several processes), or the in-memory layer when it is empty."""
    if redis_url:
        # redis-py 8 gives up on a read after 5 s by default, exactly as long as channels_redis blocks
        # waiting for a message (BZPOPMIN, 5 s): every idle receive would fail. Allow more.
        host = {"address": redis_url, "socket_timeout": 15}
        return {
            "default": {
                "BACKEND": "channels_redis.core.RedisChannelLayer",
                # A group member that stops joining again (its process died) is dropped after a minute,
                # not channels_redis's default day: every message to the group is also queued for it.
                # (Wake-ups and forwarded writes go over Redis pub/sub instead: store.notify, sim.remote.)
                "CONFIG": {"hosts": [host], "capacity": 1000, "group_expiry": 60},
            }
        }
    return {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer", "CONFIG": {"capacity": 1000}}}


DATABASES = {"default": database(os.environ.get("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}"))}
REDIS_URL = os.environ.get("REDIS_URL", "")
CHANNEL_LAYERS = channel_layers(REDIS_URL)

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("zh-hans", "简体中文")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [
    BASE_DIR / "static",
    # Front-end packages installed from npm by scripts/setup (package.json, package-lock.json).
    ("vendor/htmx", BASE_DIR / "node_modules" / "htmx.org" / "dist"),
    ("vendor/htmx-ext-ws", BASE_DIR / "node_modules" / "htmx-ext-ws" / "dist"),
    ("vendor/codemirror", BASE_DIR / "node_modules" / "codemirror"),
]
WHITENOISE_USE_FINDERS = True
STATIC_ROOT = BASE_DIR / "staticfiles"

# The API server refuses bodies larger than this (Kubernetes allows 3 MiB per request).
DATA_UPLOAD_MAX_MEMORY_SIZE = int(os.environ.get("CLUSTERVIZ_MAX_BODY_BYTES", str(3 * 1024 * 1024)))

CLUSTERVIZ: dict[str, Any] = {
    # Watch events kept per cluster before the oldest are compacted away.
    "WATCH_LOG_RETAIN": int(os.environ.get("CLUSTERVIZ_WATCH_LOG_RETAIN", "5000")),
    # The demo cluster created by migrate.
    "DEMO_CLUSTER": os.environ.get("CLUSTERVIZ_DEMO_CLUSTER", "demo"),
    # Mode a cluster's simulation starts in: live, paused, step or fast-forward.
    "DEFAULT_MODE": os.environ.get("CLUSTERVIZ_DEFAULT_MODE", "live"),
    # Run the simulation engines inside web processes (off when workers run them).
    "ENGINES": env_bool("CLUSTERVIZ_ENGINES", True),
    # How much lower a simworker's CPU priority is than the web processes' (nice). On a machine with few
    # cores, the people waiting for an answer (kubectl, pages) go first, and the engines take what is left.
    "WORKER_NICE": int(os.environ.get("CLUSTERVIZ_WORKER_NICE", "10")),
    # "open": clusters outside any class are open to everybody (the single-laptop demo);
    # "classroom": only teachers may use them. Classes' clusters are protected either way.
    "ACCESS": os.environ.get("CLUSTERVIZ_ACCESS", "open"),
    # Writes per second allowed to one user (or one address when anonymous), and the burst above it; 0 turns it off.
    "WRITE_RATE": float(os.environ.get("CLUSTERVIZ_WRITE_RATE", "50")),
    "WRITE_BURST": int(os.environ.get("CLUSTERVIZ_WRITE_BURST", "200")),
    # Where kubectl reaches the API over HTTPS (kubectl sends tokens only over TLS), e.g.
    # https://127.0.0.1:8443, and that endpoint's certificate, embedded in downloaded kubeconfigs.
    "KUBECTL_URL": os.environ.get("CLUSTERVIZ_KUBECTL_URL", ""),
    "TLS_CERT": os.environ.get("CLUSTERVIZ_TLS_CERT", ""),
}
if CLUSTERVIZ["ACCESS"] not in ("open", "classroom"):
    raise RuntimeError("CLUSTERVIZ_ACCESS must be open or classroom")

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "classes"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("CLUSTERVIZ_LOG_LEVEL", "WARNING")},
}
