"""Django settings for clusterviz.

Every setting has an embedded default for the single-process classroom setup
(SQLite, in-memory channel layer) and can be overridden from the environment.
"""

import os
import tempfile
from pathlib import Path

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
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
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

_default_db = f"sqlite:///{BASE_DIR / 'db.sqlite3'}"
DATABASES = {"default": dj_database_url.parse(os.environ.get("DATABASE_URL", _default_db), conn_max_age=0)}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # IMMEDIATE transactions take the write lock up front, so concurrent writers
    # queue on the busy timeout instead of failing with "database is locked".
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 30,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
    # A file (not :memory:) so worker threads share it; one per test process so parallel runs don't collide.
    DATABASES["default"]["TEST"] = {"NAME": str(Path(tempfile.gettempdir()) / f"clusterviz-test-{os.getpid()}.sqlite3")}

REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [REDIS_URL], "capacity": 1000},
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer", "CONFIG": {"capacity": 1000}}}

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

CLUSTERVIZ = {
    # Watch events kept per cluster before the oldest are compacted away.
    "WATCH_LOG_RETAIN": int(os.environ.get("CLUSTERVIZ_WATCH_LOG_RETAIN", "5000")),
    # The demo cluster created by migrate.
    "DEMO_CLUSTER": os.environ.get("CLUSTERVIZ_DEMO_CLUSTER", "demo"),
    # Mode a cluster's simulation starts in: live, paused, step or fast-forward.
    "DEFAULT_MODE": os.environ.get("CLUSTERVIZ_DEFAULT_MODE", "live"),
    # Run the simulation engines inside web processes (off when workers run them).
    "ENGINES": env_bool("CLUSTERVIZ_ENGINES", True),
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("CLUSTERVIZ_LOG_LEVEL", "WARNING")},
}
