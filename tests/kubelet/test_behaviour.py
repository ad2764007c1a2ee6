"""What a container's process does, read from its image and command."""

from __future__ import annotations

from clusterviz.kubelet.behaviour import BATCH_RUN_SECONDS, Behaviour, Line, behaviour_of


def run(image: str, *, command: list[str] | None = None, args: list[str] | None = None, policy: str = "Always",
        annotations: dict[str, str] | None = None, env: dict[str, str] | None = None) -> Behaviour:
    spec: dict = {"name": "c", "image": image}
    if command is not None:
        spec["command"] = command
    if args is not None:
        spec["args"] = args
    pod = {"metadata": {"name": "p", "annotations": annotations or {}}, "spec": {"restartPolicy": policy, "containers": [spec]}}
    return behaviour_of(pod, spec, env)


def test_servers_serve_and_print_their_start_up():
    assert run("nginx:1.27") == Behaviour(server="nginx")
    assert run("soscscs/myapp:v1").server == "nginx"
    assert run("redis", args=["--appendonly", "yes"]).exit_after is None


def test_shell_images_run_their_command():
    assert run("busybox") == Behaviour(exit_after=0.0)  # sh without input ends at once
    assert run("busybox", args=["echo", "hello"]) == Behaviour(exit_after=0.0, output=(Line(0.0, "hello"),))
    assert run("busybox", args=["false"]).exit_code == 1
    assert run("busybox", args=["sleep", "30"]) == Behaviour(exit_after=30.0)
    assert run("busybox", args=["sleep", "infinity"]).exit_after is None
    script = run("alpine", command=["sh", "-c"], args=["echo $A; sleep 5 && echo two || echo never; exit 4"], env={"A": "1"})
    assert script == Behaviour(exit_after=5.0, exit_code=4, output=(Line(0.0, "1"), Line(5.0, "two")))
    assert run("busybox", command=["sh", "-c", "false && echo no"]) == Behaviour(exit_after=0.0, exit_code=1)
    forever = run("busybox", command=["sh", "-c", "while true; do echo tick; sleep 1; done"])
    assert forever.exit_after is None and forever.output == (Line(0.0, "tick"),)
    assert run("busybox", args=["printenv", "A"], env={"A": "x"}).output == (Line(0.0, "x"),)


def test_unknown_images_serve_unless_meant_to_end_and_annotations_win():
    assert run("example.com/shop:1").exit_after is None
    assert run("example.com/shop:1", policy="Never").exit_after == BATCH_RUN_SECONDS
    scripted = run("nginx", annotations={"clusterviz.io/exit-after": "1m", "clusterviz.io/exit-code": "137"})
    assert (scripted.exit_after, scripted.exit_code) == (60.0, 137)
