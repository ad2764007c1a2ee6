"""Template tags of the dashboard."""
