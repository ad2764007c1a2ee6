"""The dashboard: pages, htmx partials and websocket consumers."""
