"""The value domain every model shares, and name binding (scopes, imports, aliases)."""
