"""The OpenAPI v3 (structural) schema engine for custom resources, as apiextensions-apiserver runs it.

Plain functions over decoded JSON: :func:`validate` judges a custom resource
against its version's ``openAPIV3Schema``, :func:`apply_defaults` fills in the
schema's defaults and :func:`prune` drops the fields the schema does not declare.
"""

from .defaulting import apply_defaults
from .pruning import prune
from .validation import validate

__all__ = ["apply_defaults", "prune", "validate"]
