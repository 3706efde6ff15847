"""A local Ray cluster on 127.0.0.1 for the audit-batch tests (test-only code): a head and two
worker nodes, one CPU each, started with Ray's own cluster utility in a process of its own.

Run as `python -m tests.reliability.ray_cluster`: prints `address HOST:PORT` once the three
nodes are up, and stops them (only them) when its standard input closes.
"""

from __future__ import annotations

import sys

from ray.cluster_utils import Cluster

NODE = {"num_cpus": 1, "node_ip_address": "127.0.0.1", "include_dashboard": False}


def main() -> None:
    cluster = Cluster(initialize_head=True, head_node_args=dict(NODE))
    try:
        for _ in range(2):
            cluster.add_node(**NODE)
        cluster.wait_for_nodes()
        print(f"address {cluster.address}", flush=True)
        sys.stdin.read()
    finally:
        cluster.shutdown()


if __name__ == "__main__":
    main()
