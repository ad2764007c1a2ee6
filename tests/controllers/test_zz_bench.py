import time

from .helpers import Cluster, deployment


async def test_bench(cluster: Cluster) -> None:
    cluster.fake.ready_delay = 1.0
    t = time.perf_counter()
    start = cluster.engine.last_seq
    await cluster.kubectl.create(deployment(replicas=1000))
    await cluster.settle()
    print("\nwall", round(time.perf_counter() - t, 1), "msgs", cluster.engine.last_seq - start, "sim", cluster.engine.now)
    d = await cluster.kubectl.get("deployments", "myapp", "default")
    print(d["status"])
