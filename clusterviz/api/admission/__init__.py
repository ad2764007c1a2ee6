"""Mutating admission: what the API server's admission plugins change in an object before it is stored."""
