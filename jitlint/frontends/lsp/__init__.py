"""The Language Server: pygls glue (server.py), what it knows of the workspace (editor.py), its
threads, debounce and JSON-RPC rules (serving.py), and reading its frames (framing.py)."""
