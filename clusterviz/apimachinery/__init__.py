"""Pure building blocks shared by every component, like k8s.io/apimachinery.

Nothing in this package does I/O or touches Django models.
"""
