#!/usr/bin/env python3
"""Add, lease and delete tasks through taskqueue's SQL API from Python.

Uses psycopg2 (Debian: apt-get install python3-psycopg2) and nothing of
taskqueue's own: every call is one SQL function in the service's schema,
inside this program's own transaction.

    python_psycopg2.py DSN SCHEMA QUEUE add       adds tasks: one transaction
                                                  rolled back, one committed
    python_psycopg2.py DSN SCHEMA QUEUE consume   leases every task, renews
                                                  each lease, deletes them

Prints what it did as one JSON object (payloads in hex).
"""
import json
import sys

import psycopg2
from psycopg2 import sql


def add(conn, schema, queue):
    add_task = sql.SQL("select {}.add_task(%s, %s)").format(sql.Identifier(schema))
    add_tasks = sql.SQL("select {}.add_tasks(%s, %s::bytea[], %s::text[], %s::text[])").format(sql.Identifier(schema))

    # Rolled back: the task never was, for readers and for storage limits.
    with conn.cursor() as cur:
        cur.execute(add_task, (queue, b"rolled back"))
        rolled_back = cur.fetchone()[0]
    conn.rollback()

    # Committed: visible to every consumer once this commits.
    payloads = [bytes(range(256)), "naïve ✓".encode("utf-8"), b""]
    with conn.cursor() as cur:
        cur.execute(add_tasks, (queue, [psycopg2.Binary(p) for p in payloads], [None, "py-chosen", None], ["py", None, None]))
        names = cur.fetchone()[0]
    conn.commit()
    return {
        "rolledBack": rolled_back,
        "committed": [{"name": n, "payload": p.hex()} for n, p in zip(names, payloads)],
    }


def consume(conn, schema, queue):
    lease = sql.SQL("select name, payload, tag, retry_count, lease_expires_at from {}.lease_tasks(%s, %s, %s)").format(
        sql.Identifier(schema)
    )
    modify = sql.SQL("select {}.modify_lease(%s, %s, %s, %s)").format(sql.Identifier(schema))
    delete = sql.SQL("select {}.delete_task(%s, %s)").format(sql.Identifier(schema))
    consumed = []
    while True:
        with conn.cursor() as cur:
            cur.execute(lease, (queue, 10, 60))
            tasks = cur.fetchall()
        conn.commit()
        if not tasks:
            return {"consumed": consumed}
        for name, payload, tag, retry_count, expires in tasks:
            with conn.cursor() as cur:
                # The expiry the lease returned is the lease token, to the microsecond.
                cur.execute(modify, (queue, name, expires, 120))
                cur.fetchone()
                cur.execute(delete, (queue, name))
                deleted = cur.fetchone()[0]
            conn.commit()
            consumed.append({"name": name, "payload": bytes(payload).hex(), "tag": tag, "retryCount": retry_count, "deleted": deleted})


def main():
    dsn, schema, queue, action = sys.argv[1:5]
    conn = psycopg2.connect(dsn)
    try:
        result = add(conn, schema, queue) if action == "add" else consume(conn, schema, queue)
    finally:
        conn.close()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
