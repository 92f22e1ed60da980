#!/bin/sh
# Re-records sqltools_dev_server.jsonl: npm mcp-sqlite@1.0.9 in /tmp/rec-sqltools_dev over a SQLite file with two tables:
#   npm install --prefix /tmp/rec-sqltools_dev mcp-sqlite@1.0.9 && npm rebuild --prefix /tmp/rec-sqltools_dev sqlite3
# db_info's lastModified is the file's mtime and varies run to run. Arguments go to record_session:
# `sh tests/ground_truth/record_sqltools_dev.sh --heldout` records heldout/sqltools_dev.jsonl.
set -e
cd "$(dirname "$0")/../.." && . .venv/bin/activate
SETUP='python3 -c "import sqlite3; c=sqlite3.connect('"'"'gt.db'"'"'); c.executescript('"'"'CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT, email TEXT UNIQUE); CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id), total REAL NOT NULL, placed_on TEXT); INSERT INTO customers VALUES (1, \"Ines Carvalho\", \"Lisbon\", \"ines@carvalho.pt\"), (2, \"Jonas Berg\", \"Oslo\", \"jonas.berg@example.no\"), (3, \"Amelie Laurent\", \"Lyon\", \"amelie@laurent.fr\"); INSERT INTO orders VALUES (1, 1, 249.9, \"2026-10-14\"), (2, 2, 89.0, \"2026-11-03\")'"'"'); c.commit()"'
python -m tests.ground_truth.record_session sqltools_dev "$@" --workdir /tmp/gt-sqlt --setup "$SETUP" -- \
  /tmp/rec-sqltools_dev/node_modules/.bin/mcp-sqlite-server gt.db
