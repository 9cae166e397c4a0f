"""Which neural-network library the ``train`` extra uses: the same network (the one
``colorwars.zero`` trains: a 3x3 stem, residual blocks, a 1x1 policy head and a pooled value
head), the same loss and optimiser (Adam), the same batches, timed in whichever of PyTorch and
JAX/Flax/Optax is installed in the running interpreter. It prints training positions per
second, inference positions per second and the installed size of the library with the
packages it pulled in.

    python benchmarks/train_library.py            # in a venv with torch, or with jax+flax+optax
    python benchmarks/train_library.py --threads 2 --size 8x8
"""

from __future__ import annotations

import argparse
import importlib.metadata as md
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

CHANNELS, BLOCKS, FEATURES = 32, 3, 10


def installed_mb(roots: list[str]) -> float:
    """The installed size of the distributions ``roots`` and everything they require."""
    seen: set[str] = set()
    todo = list(roots)
    total = 0
    while todo:
        name = todo.pop().lower().replace("_", "-")
        if name in seen:
            continue
        seen.add(name)
        try:
            dist = md.distribution(name)
        except md.PackageNotFoundError:
            continue
        for f in dist.files or []:
            p = Path(str(dist.locate_file(f)))
            if p.is_file():
                total += p.stat().st_size
        for req in dist.requires or []:
            if "extra ==" in req:
                continue
            head = req.split(";")[0].strip()
            for sep in "<>=!~[ (":
                head = head.split(sep)[0]
            todo.append(head)
    return total / 2**20


def batch(rng: np.random.Generator, n: int, h: int, w: int) -> tuple[np.ndarray, ...]:
    x = rng.random((n, FEATURES, h, w), dtype=np.float32)
    pi = rng.random((n, h * w), dtype=np.float32)
    pi /= pi.sum(axis=1, keepdims=True)
    z = rng.uniform(-1, 1, n).astype(np.float32)
    return x, pi, z


def bench_torch(args: argparse.Namespace, h: int, w: int) -> dict[str, float]:
    import torch
    from torch import nn

    torch.set_num_threads(args.threads)

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a = nn.Conv2d(CHANNELS, CHANNELS, 3, padding=1)
            self.b = nn.Conv2d(CHANNELS, CHANNELS, 3, padding=1)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.relu(x + self.b(torch.relu(self.a(x))))

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.stem = nn.Conv2d(FEATURES, CHANNELS, 3, padding=1)
            self.blocks = nn.Sequential(*[Block() for _ in range(BLOCKS)])
            self.policy = nn.Conv2d(CHANNELS, 1, 1)
            self.v1 = nn.Linear(2 * CHANNELS, 64)
            self.v2 = nn.Linear(64, 1)

        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            x = self.blocks(torch.relu(self.stem(x)))
            logits = self.policy(x).flatten(1)
            pooled = torch.cat([x.mean((2, 3)), x.amax((2, 3))], 1)
            return logits, torch.tanh(self.v2(torch.relu(self.v1(pooled)))).squeeze(1)

    net = Net()
    opt = torch.optim.Adam(net.parameters(), 1e-3)
    rng = np.random.default_rng(0)
    data = [tuple(torch.from_numpy(a) for a in batch(rng, args.batch, h, w)) for _ in range(4)]

    def step(x: torch.Tensor, pi: torch.Tensor, z: torch.Tensor) -> None:
        logits, v = net(x)
        loss = -(pi * torch.log_softmax(logits, 1)).sum(1).mean() + ((v - z) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()

    for i in range(5):
        step(*data[i % 4])
    t = time.perf_counter()
    steps = 0
    while time.perf_counter() - t < args.seconds:
        step(*data[steps % 4])
        steps += 1
    train = steps * args.batch / (time.perf_counter() - t)
    x = torch.from_numpy(batch(rng, 64, h, w)[0])
    with torch.inference_mode():
        net(x)
        t, n = time.perf_counter(), 0
        while time.perf_counter() - t < 2:
            net(x)
            n += 64
    infer = n / (time.perf_counter() - t)
    return {"train": train, "infer64": infer, "mb": installed_mb(["torch"])}


def bench_jax(args: argparse.Namespace, h: int, w: int) -> dict[str, float]:
    os.environ.setdefault(
        "XLA_FLAGS",
        f"--xla_cpu_multi_thread_eigen=true intra_op_parallelism_threads={args.threads}",
    )
    import jax
    import jax.numpy as jnp
    import optax
    from flax import linen as nn

    class Net(nn.Module):
        @nn.compact
        def __call__(self, x: jax.Array) -> tuple[jax.Array, jax.Array]:
            x = jnp.transpose(x, (0, 2, 3, 1))  # NHWC
            x = nn.relu(nn.Conv(CHANNELS, (3, 3))(x))
            for _ in range(BLOCKS):
                y = nn.relu(nn.Conv(CHANNELS, (3, 3))(x))
                x = nn.relu(x + nn.Conv(CHANNELS, (3, 3))(y))
            logits = nn.Conv(1, (1, 1))(x).reshape(x.shape[0], -1)
            pooled = jnp.concatenate([x.mean((1, 2)), x.max((1, 2))], 1)
            v = jnp.tanh(nn.Dense(1)(nn.relu(nn.Dense(64)(pooled))))[:, 0]
            return logits, v

    net = Net()
    rng = np.random.default_rng(0)
    data = [tuple(jnp.asarray(a) for a in batch(rng, args.batch, h, w)) for _ in range(4)]
    params = net.init(jax.random.PRNGKey(0), data[0][0])
    tx = optax.adam(1e-3)
    state = tx.init(params)

    @jax.jit
    def step(params, state, x, pi, z):  # type: ignore[no-untyped-def]
        def loss_fn(p):  # type: ignore[no-untyped-def]
            logits, v = net.apply(p, x)
            return -(pi * jax.nn.log_softmax(logits)).sum(1).mean() + ((v - z) ** 2).mean()

        grads = jax.grad(loss_fn)(params)
        updates, state = tx.update(grads, state, params)
        return optax.apply_updates(params, updates), state

    for i in range(5):
        params, state = step(params, state, *data[i % 4])
    jax.block_until_ready(params)
    t = time.perf_counter()
    steps = 0
    while time.perf_counter() - t < args.seconds:
        params, state = step(params, state, *data[steps % 4])
        steps += 1
    jax.block_until_ready(params)
    train = steps * args.batch / (time.perf_counter() - t)
    apply = jax.jit(net.apply)
    x = jnp.asarray(batch(rng, 64, h, w)[0])
    jax.block_until_ready(apply(params, x))
    t, n = time.perf_counter(), 0
    while time.perf_counter() - t < 2:
        jax.block_until_ready(apply(params, x))
        n += 64
    infer = n / (time.perf_counter() - t)
    return {"train": train, "infer64": infer, "mb": installed_mb(["jax", "flax", "optax"])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--size", default="8x8")
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument(
        "--record", action="store_true",
        help="merge the figures into benchmarks/results/train_library.json (run once in each "
        "library's virtualenv)",
    )  # fmt: skip
    args = parser.parse_args()
    w, h = (int(s) for s in args.size.split("x"))
    rows = {}
    for name, fn in (("pytorch", bench_torch), ("jax", bench_jax)):
        try:
            rows[name] = fn(args, h, w)
        except ImportError as e:
            print(f"{name}: not installed here ({e})")
            continue
        r = rows[name]
        print(
            f"{name}: training {r['train']:,.0f} positions/s (batch {args.batch}), "
            f"inference {r['infer64']:,.0f} positions/s (batch 64), "
            f"installed {r['mb']:,.0f} MB, {args.threads} threads, {args.size}"
        )
    if args.record and rows:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from _results import RESULTS, write_results

        path = RESULTS / "train_library.json"
        figures = json.loads(path.read_text())["figures"] if path.exists() else {}
        for name, r in rows.items():
            for key, value in r.items():
                figures[f"{name}:{key}"] = value
        figures["threads"], figures["size"], figures["batch"] = args.threads, args.size, args.batch
        write_results("train_library", figures, quick=False)
    if not rows:
        sys.exit("neither PyTorch nor JAX is installed in this interpreter")


if __name__ == "__main__":
    main()
