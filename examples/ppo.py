"""PPO that learns 5 x 5 Color Wars in minutes on a CPU: one file, CleanRL style, JAX + Flax +
Optax.

The agent is a policy and a value network sharing one trunk; the policy is a categorical over
the 25 cells, masked by the environment's action mask (illegal cells get no probability). It
plays through Gymnasium: a ``gymnasium.vector.SyncVectorEnv`` of
``colorwars.gymnasium.ColorWarsEnv`` environments, each with a built-in opponent (greedy by
default; ``--opponents greedy,random`` mixes them) and the agent's seat drawn at random for every
episode, so that it learns to move first and second. The opponents move inside the
environment; the reward is +1 for a win and -1 for a loss, at the end only.

With ``--lookahead 1`` (the default) the observation also says what each legal move would do:
the engine plays it on a copy of the game and the ``Lookahead`` wrapper adds, per cell, the
agent's and the opponent's orbs after the cascade and whether the move wins at once (one ply,
the facts a greedy player weighs; nothing about the replies). The network still has to learn
what to make of them. ``--lookahead 0`` learns from the board alone, more slowly.

After training it plays ``--eval-games`` games against ``colorwars.ai.Greedy`` (half as the
first mover, half as the second, its most probable legal move every time) and prints the win
rate with a 95% Wilson interval. At every 15th of the budget it measures the win rate against
greedy on a fixed set of ``--curve-games`` games (the learning curve, ``--curve``; those games
do not count against the training minutes). ::

    python examples/ppo.py                                   # 12 minutes, then 400 games
    python examples/ppo.py --minutes 3 --curve curve.png --json ppo.json --save ppo.params
    python examples/ppo.py --minutes 0 --total-timesteps 1000000   # reproducible for a seed
    python examples/ppo.py --load ppo.params                 # evaluate saved parameters

A run is deterministic for a seed once its length is fixed by ``--total-timesteps``
(``--minutes 0``): the environments, opponents and JAX's random keys all derive from
``--seed``, and the evaluations draw nothing from them. Under a time budget the number of
updates depends on the machine. Ctrl-C stops the training after the current rollout and
goes on to the evaluation and the output files; a second Ctrl-C aborts (the files are
written atomically, so none is left half-written).

Needs the ``train`` and ``gymnasium`` extras, ``pip install '.[train,gymnasium]'`` (the
``train`` extra brings matplotlib for ``--curve``).
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import os
import platform
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any, NamedTuple, cast

import numpy as np
import numpy.typing as npt

try:
    import flax
    import flax.linen as nn
    import flax.serialization
    import gymnasium
    import jax
    import jax.numpy as jnp
    import optax
    from gymnasium.vector import AutoresetMode
except ModuleNotFoundError as e:
    sys.exit(
        f"examples/ppo.py needs {e.name}: pip install '.[train,gymnasium]'"
        " (matplotlib too for --curve)"
    )

import colorwars
import colorwars.gymnasium
from colorwars._files import atomic_open, atomic_write, check_output, read_sealed, seal
from colorwars.players import Greedy, Player, native_game, parse_player
from colorwars.statistics import wilson_interval

WIDTH, HEIGHT, RULES = 5, 5, "colorwars"
CELLS = WIDTH * HEIGHT
MAX_PLIES = 400  # a safety net: games against these opponents end long before
PARAMS_KIND, PARAMS_VERSION = "ppo-params", 1
CURVE_POINTS = 15
CURVE_GAMES = 200  # per point, half in each seat


# -- arguments ------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description="PPO (JAX + Flax + Optax) for 5 x 5 Color Wars against built-in players, "
        "evaluated against greedy.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("--seed", type=int, default=1, help="seeds everything")
    p.add_argument(
        "--minutes", type=float, default=12.0, help="training budget in wall minutes (0: none)"
    )
    p.add_argument(
        "--total-timesteps",
        type=int,
        default=0,
        help="stop after this many agent moves, rounded down to whole rollouts (0: only the "
        "time budget)",
    )
    p.add_argument("--num-envs", type=int, default=128, help="environments stepped together")
    p.add_argument("--num-steps", type=int, default=32, help="moves per environment a rollout")
    p.add_argument("--opponents", default="greedy", help="training opponents, comma-separated")
    p.add_argument("--eval-games", type=int, default=400, help="final games against greedy")
    p.add_argument("--curve-games", type=int, default=CURVE_GAMES, help="games per curve point")
    p.add_argument("--save", type=Path, help="write the trained parameters here (sealed)")
    p.add_argument("--load", type=Path, help="evaluate these saved parameters; no training")
    p.add_argument("--curve", type=Path, help="write the learning curve here (PNG)")
    p.add_argument("--json", type=Path, help="write the results here")
    p.add_argument("--note", default="", help="a remark for the JSON (e.g. a shared machine)")
    # PPO's settings (CleanRL's names).
    p.add_argument("--learning-rate", type=float, default=1e-3)
    p.add_argument("--anneal-lr", type=int, default=1, help="1: decay to 10%% over the budget")
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--num-minibatches", type=int, default=4)
    p.add_argument("--update-epochs", type=int, default=4)
    p.add_argument("--clip-coef", type=float, default=0.2)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--max-grad-norm", type=float, default=0.5)
    p.add_argument("--hidden", type=int, default=256, help="width of the trunk's layers")
    p.add_argument(
        "--lookahead",
        type=int,
        choices=(0, 1),
        default=1,
        help="1: the observation shows what each legal move would do (the engine plays it)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    args = p.parse_args(argv)
    if args.minutes < 0 or args.total_timesteps < 0 or args.seed < 0:
        p.error("--minutes, --total-timesteps and --seed cannot be negative")
    if args.load is None and args.minutes == 0 and args.total_timesteps == 0:
        p.error("give a budget: --minutes or --total-timesteps")
    if args.num_envs < 1 or args.num_steps < 1:
        p.error("--num-envs and --num-steps must be at least 1")
    if (args.num_envs * args.num_steps) % args.num_minibatches:
        p.error("--num-envs * --num-steps must be a multiple of --num-minibatches")
    if args.eval_games < 2 or args.eval_games % 2:
        p.error("--eval-games must be even (half in each seat) and at least 2")
    if args.curve_games < 0 or args.curve_games % 2:
        p.error("--curve-games must be even (half in each seat)")
    try:
        args.opponent_players = [parse_player(name) for name in args.opponents.split(",")]
    except ValueError as e:
        p.error(f"--opponents: {e}")
    return args


# -- the network ----------------------------------------------------------------------------


def _capacity() -> npt.NDArray[np.int32]:
    """Each cell's capacity (RULES.md §1): 1 in a corner, 2 on an edge, 3 inside."""
    y, x = np.mgrid[0:HEIGHT, 0:WIDTH]
    degree = (x > 0).astype(np.int32) + (x < WIDTH - 1) + (y > 0) + (y < HEIGHT - 1)
    capacity: npt.NDArray[np.int32] = (degree - 1).astype(np.int32)
    return capacity


CAPACITY = _capacity()


def planes(lookahead: bool) -> int:
    """The observation's planes: the two sides' orbs, and ``Lookahead``'s three."""
    return 5 if lookahead else 2


def features(obs: jax.Array) -> jax.Array:
    """Planes a network reads easily from the observation (``uint8`` ``(batch, planes, h,
    w)``: the agent's orbs, the opponent's, then ``Lookahead``'s three planes if present):
    each side's cells with 1, 2 and 3 orbs, its cells one orb from bursting, the empty cells,
    the capacities, whether each side has a cell yet (before its first move a ``drop3`` drop
    is to come), and with the lookahead what each legal move gains, captures and wins."""
    x = obs.astype(jnp.int32)
    own, opp = x[:, 0], x[:, 1]
    cap = jnp.asarray(CAPACITY)[None]
    ones = jnp.ones_like(own)
    planes = [own == k for k in (1, 2, 3)] + [opp == k for k in (1, 2, 3)]
    planes += [(own > 0) & (own >= cap), (opp > 0) & (opp >= cap), (own + opp) == 0]
    planes += [ones * (cap == k) for k in (1, 2, 3)]
    own_now = own.sum((1, 2), keepdims=True)
    opp_now = opp.sum((1, 2), keepdims=True)
    planes += [ones * (own_now == 0), ones * (opp_now == 0)]
    out = jnp.stack(planes, axis=-1).astype(jnp.float32)
    if obs.shape[1] == 2:
        return out  # (batch, h, w, planes)
    own_after, opp_after, wins = x[:, 2], x[:, 3], x[:, 4]
    legal = own_after > 0  # a legal move always leaves the mover with orbs
    gain = jnp.where(legal, own_after - own_now, 0) / 8.0
    captured = jnp.where(legal, opp_now - opp_after, 0) / 8.0
    more = jnp.stack([gain, captured, wins.astype(jnp.float32)], axis=-1)
    return jnp.concatenate([out, more], axis=-1)


class Agent(nn.Module):
    """A shared trunk of dense layers, a logit per cell and a value."""

    hidden: int = 256

    @nn.compact
    def __call__(self, obs: jax.Array) -> tuple[jax.Array, jax.Array]:
        x = features(obs).reshape(obs.shape[0], -1)
        ortho = nn.initializers.orthogonal
        for _ in range(2):
            x = nn.relu(nn.Dense(self.hidden, kernel_init=ortho(math.sqrt(2)))(x))
        logits = nn.Dense(CELLS, kernel_init=ortho(0.01))(x)
        value = nn.Dense(1, kernel_init=ortho(1.0))(x)[:, 0]
        return logits, value


def masked(logits: jax.Array, mask: jax.Array) -> jax.Array:
    """Log-probabilities of the legal cells only (the illegal ones get -1e9 logits)."""
    return jax.nn.log_softmax(jnp.where(mask, logits, -1e9), axis=-1)


def make_optimiser(max_grad_norm: float) -> Callable[..., optax.GradientTransformation]:
    """Adam after clipping the gradient's norm, its learning rate a hyperparameter the
    update sets (annealed over the budget)."""

    def build(learning_rate: float) -> optax.GradientTransformation:
        return optax.chain(
            optax.clip_by_global_norm(max_grad_norm), optax.adam(learning_rate, eps=1e-5)
        )

    return cast(Callable[..., optax.GradientTransformation], optax.inject_hyperparams(build))


class Batch(NamedTuple):
    obs: jax.Array
    mask: jax.Array
    actions: jax.Array
    logp: jax.Array
    advantages: jax.Array
    returns: jax.Array


@dataclass(frozen=True)
class Settings:
    """PPO's hyperparameters that shape the compiled update (hashable for ``jax.jit``)."""

    num_minibatches: int
    update_epochs: int
    clip_coef: float
    ent_coef: float
    vf_coef: float
    gamma: float
    gae_lambda: float


def make_functions(
    agent: Agent, optimiser: optax.GradientTransformation, s: Settings
) -> tuple[Callable[..., Any], Callable[..., Any], Callable[..., Any], Callable[..., Any]]:
    """The jitted pieces: sampling a move, the greedy (argmax) move, the value and the
    update."""

    def forward(params: Any, obs: jax.Array) -> tuple[jax.Array, jax.Array]:
        return cast(tuple[jax.Array, jax.Array], agent.apply(params, obs))

    @jax.jit
    def act(
        params: Any, obs: jax.Array, mask: jax.Array, key: jax.Array
    ) -> tuple[jax.Array, jax.Array, jax.Array]:
        logits, value = forward(params, obs)
        logp_all = masked(logits, mask)
        action = jax.random.categorical(key, logp_all)
        logp = jnp.take_along_axis(logp_all, action[:, None], axis=1)[:, 0]
        return action, logp, value

    @jax.jit
    def best(params: Any, obs: jax.Array, mask: jax.Array) -> jax.Array:
        logits, _ = forward(params, obs)
        return jnp.argmax(jnp.where(mask, logits, -jnp.inf), axis=-1)

    @jax.jit
    def value(params: Any, obs: jax.Array) -> jax.Array:
        return forward(params, obs)[1]

    def loss_fn(params: Any, b: Batch) -> tuple[jax.Array, dict[str, jax.Array]]:
        logits, v = forward(params, b.obs)
        logp_all = masked(logits, b.mask)
        logp = jnp.take_along_axis(logp_all, b.actions[:, None], axis=1)[:, 0]
        ratio = jnp.exp(logp - b.logp)
        adv = (b.advantages - b.advantages.mean()) / (b.advantages.std() + 1e-8)
        pg = jnp.maximum(-adv * ratio, -adv * jnp.clip(ratio, 1 - s.clip_coef, 1 + s.clip_coef))
        pg_loss = pg.mean()
        v_loss = 0.5 * ((v - b.returns) ** 2).mean()
        probs = jnp.exp(logp_all)
        entropy = -jnp.where(b.mask, probs * logp_all, 0.0).sum(-1).mean()
        loss = pg_loss + s.vf_coef * v_loss - s.ent_coef * entropy
        approx_kl = ((ratio - 1) - (logp - b.logp)).mean()
        return loss, {"pg": pg_loss, "v": v_loss, "entropy": entropy, "kl": approx_kl}

    @jax.jit
    def update(
        params: Any,
        opt_state: Any,
        rollout: dict[str, jax.Array],
        last_value: jax.Array,
        learning_rate: jax.Array,
        key: jax.Array,
    ) -> tuple[Any, Any, dict[str, jax.Array]]:
        # Generalised advantage estimation, backwards over the rollout; `dones[t]` says the
        # episode ended with move t (the next observation is then a new game's first).
        rewards, values, dones = rollout["rewards"], rollout["values"], rollout["dones"]
        next_values = jnp.concatenate([values[1:], last_value[None]])

        def gae(carry: jax.Array, t: tuple[jax.Array, ...]) -> tuple[jax.Array, jax.Array]:
            r, v, nv, d = t
            live = 1.0 - d
            delta = r + s.gamma * nv * live - v
            carry = delta + s.gamma * s.gae_lambda * live * carry
            return carry, carry

        _, advantages = jax.lax.scan(
            gae, jnp.zeros_like(last_value), (rewards, values, next_values, dones), reverse=True
        )
        returns = advantages + values
        flat = Batch(
            obs=rollout["obs"].reshape(-1, *rollout["obs"].shape[2:]),
            mask=rollout["mask"].reshape(-1, CELLS),
            actions=rollout["actions"].reshape(-1),
            logp=rollout["logp"].reshape(-1),
            advantages=advantages.reshape(-1),
            returns=returns.reshape(-1),
        )
        n = flat.actions.shape[0]
        size = n // s.num_minibatches
        opt_state.hyperparams["learning_rate"] = learning_rate

        def epoch(carry: tuple[Any, Any], k: jax.Array) -> tuple[tuple[Any, Any], Any]:
            order = jax.random.permutation(k, n).reshape(s.num_minibatches, size)

            def minibatch(c: tuple[Any, Any], idx: jax.Array) -> tuple[tuple[Any, Any], Any]:
                p, o = c
                mb = jax.tree_util.tree_map(lambda a: a[idx], flat)
                (_, stats), grads = jax.value_and_grad(loss_fn, has_aux=True)(p, mb)
                updates, o = optimiser.update(grads, o, p)
                return (optax.apply_updates(p, updates), o), stats

            return jax.lax.scan(minibatch, carry, order)

        (params, opt_state), stats = jax.lax.scan(
            epoch, (params, opt_state), jax.random.split(key, s.update_epochs)
        )
        return params, opt_state, jax.tree_util.tree_map(jnp.mean, stats)

    return act, best, value, update


# -- playing --------------------------------------------------------------------------------


class Lookahead(gymnasium.ObservationWrapper[Any, Any, Any]):
    """Three more observation planes: for every cell the agent may play, the agent's orbs and
    the opponent's after the move and its cascade (the engine plays it on a copy of the
    game), and 1 where the move wins at once; 0 on the other cells. One ply of lookahead,
    the same facts a greedy player weighs, left to the network to use."""

    def __init__(self, env: gymnasium.Env[Any, Any]) -> None:
        super().__init__(env)
        self.observation_space = gymnasium.spaces.Box(0, 255, (5, HEIGHT, WIDTH), np.uint8)

    def observation(self, observation: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
        base = self.env.unwrapped
        assert isinstance(base, colorwars.gymnasium.ColorWarsEnv)
        extra = np.zeros((3, CELLS), np.uint8)
        seat = base.seat
        native = native_game(base.game)
        if seat is not None and native.winner is None and native.to_move == seat:
            other = 1 - seat
            for cell in native.legal_moves():
                after = native.copy()
                after.play(cell)
                extra[0, cell] = min(after.orbs(seat), 255)
                extra[1, cell] = min(after.orbs(other), 255)
                extra[2, cell] = after.winner == seat
        return np.concatenate([observation, extra.reshape(3, HEIGHT, WIDTH)])


def make_env(opponent: Player, seat: int | str, lookahead: bool) -> gymnasium.Env[Any, Any]:
    """One game against ``opponent``, the agent in ``seat`` (or ``"random"``: drawn for
    every episode)."""
    env: gymnasium.Env[Any, Any] = colorwars.gymnasium.ColorWarsEnv(
        width=WIDTH,
        height=HEIGHT,
        rules=RULES,
        opponent=opponent,
        seat=seat,
        max_plies=MAX_PLIES,
    )
    return Lookahead(env) if lookahead else env


def training_envs(
    num_envs: int, opponents: Sequence[Player], lookahead: bool
) -> gymnasium.vector.SyncVectorEnv:
    """``num_envs`` Gymnasium environments, the agent's seat drawn for every episode,
    environment ``i`` against ``opponents[i % len(opponents)]``; finished games restart in
    the same step."""
    return gymnasium.vector.SyncVectorEnv(
        [
            functools.partial(make_env, opponents[i % len(opponents)], "random", lookahead)
            for i in range(num_envs)
        ],
        autoreset_mode=AutoresetMode.SAME_STEP,
    )


def play_greedy(
    best: Callable[..., Any], params: Any, seat: int, games: int, seed: int, lookahead: bool
) -> tuple[int, int]:
    """Games against ``colorwars.ai.Greedy`` with the agent in ``seat`` (0 moves first),
    its most probable legal move every time: (wins, games). Game ``i`` is seeded with
    ``seed + i`` (the opponent's tie-breaks)."""
    envs = [make_env(Greedy(), seat, lookahead) for _ in range(games)]
    obs = np.zeros((games, planes(lookahead), HEIGHT, WIDTH), np.uint8)
    mask = np.zeros((games, CELLS), np.bool_)
    for i, env in enumerate(envs):
        o, info = env.reset(seed=seed + i)
        obs[i], mask[i] = o, info["action_mask"]
    live = list(range(games))
    wins = 0
    while live:
        actions = np.asarray(best(params, obs[live], mask[live]))
        still = []
        for i, a in zip(live, actions.tolist(), strict=True):
            o, reward, terminated, truncated, info = envs[i].step(a)
            if terminated or truncated:
                wins += float(reward) > 0
            else:
                obs[i], mask[i] = o, info["action_mask"]
                still.append(i)
        live = still
    return wins, games


def versus_greedy(
    best: Callable[..., Any], params: Any, games: int, seed: int, lookahead: bool
) -> dict[str, Any]:
    """``games`` games against greedy, half in each seat, with the Wilson interval."""
    first, _ = play_greedy(best, params, 0, games // 2, seed, lookahead)
    second, _ = play_greedy(best, params, 1, games // 2, seed + games, lookahead)
    wins = first + second
    low, high = wilson_interval(wins, games)
    return {
        "opponent": "greedy",
        "games": games,
        "wins": int(wins),
        "win_rate": wins / games,
        "interval95": [low, high],
        "first_mover": {"games": games // 2, "wins": int(first)},
        "second_mover": {"games": games // 2, "wins": int(second)},
    }


# -- Ctrl-C ---------------------------------------------------------------------------------


@dataclass
class StopOnCtrlC:
    """The first Ctrl-C asks the training to stop (it then evaluates and writes its files);
    the second raises ``KeyboardInterrupt`` at once."""

    requested: bool = False
    _previous: Any = field(default=None, repr=False)

    def __enter__(self) -> StopOnCtrlC:
        self._previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        signal.signal(signal.SIGINT, self._previous)

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True
        print("\nstopping the training (Ctrl-C again to abort)", file=sys.stderr, flush=True)


# -- training -------------------------------------------------------------------------------


@dataclass
class Run:
    """What a training run did."""

    params: Any
    timesteps: int = 0
    updates: int = 0
    seconds: float = 0.0
    episodes: int = 0
    stopped_by: str = "budget"
    curve: list[dict[str, Any]] = field(default_factory=list)


def train(
    args: argparse.Namespace,
    agent: Agent,
    functions: tuple[Callable[..., Any], ...],
    params: Any,
    optimiser: optax.GradientTransformation,
    stop: StopOnCtrlC,
) -> Run:
    act, best, value, update = functions
    envs = training_envs(args.num_envs, args.opponent_players, args.lookahead)
    opt_state = optimiser.init(params)
    key = jax.random.PRNGKey(args.seed)
    obs, info = envs.reset(seed=args.seed)
    mask = info["action_mask"].astype(np.bool_)
    budget = args.minutes * 60.0
    steps_per_update = args.num_envs * args.num_steps
    run = Run(params)
    recent: list[float] = []
    start = time.perf_counter()

    def elapsed() -> float:
        return time.perf_counter() - start

    def progress() -> float:
        """How much of the budget is spent, 0 to 1."""
        parts: list[float] = []
        if budget:
            parts.append(elapsed() / budget)
        if args.total_timesteps:
            parts.append(run.timesteps / args.total_timesteps)
        return min(1.0, max(parts))

    def curve_point() -> None:
        if not args.curve_games:
            return
        t = time.perf_counter()
        result = versus_greedy(best, run.params, args.curve_games, 10**6, args.lookahead)
        paused = time.perf_counter() - t
        nonlocal start
        start += paused  # the curve's games do not count against the training budget
        run.curve.append(
            {
                "minutes": elapsed() / 60,
                "timesteps": run.timesteps,
                "win_rate": result["win_rate"],
                "interval95": result["interval95"],
            }
        )
        if not args.quiet:
            print(
                f"  {elapsed() / 60:5.2f} min {run.timesteps:>9,} steps: "
                f"{result['win_rate']:.1%} against greedy ({args.curve_games} games)",
                flush=True,
            )

    curve_point()
    points = 1  # the curve's next point is due at this fraction of the budget, in 15ths
    n, m = args.num_steps, args.num_envs
    buf = {
        "obs": np.zeros((n, m, planes(args.lookahead), HEIGHT, WIDTH), np.uint8),
        "mask": np.zeros((n, m, CELLS), np.bool_),
        "actions": np.zeros((n, m), np.int32),
        "logp": np.zeros((n, m), np.float32),
        "values": np.zeros((n, m), np.float32),
        "rewards": np.zeros((n, m), np.float32),
        "dones": np.zeros((n, m), np.float32),
    }
    total_updates = args.total_timesteps // steps_per_update if args.total_timesteps else None
    while not stop.requested:
        if total_updates is not None and run.updates >= max(total_updates, 1):
            run.stopped_by = "timesteps"
            break
        if budget and elapsed() >= budget:
            break
        for t in range(n):
            key, k = jax.random.split(key)
            action, logp, v = act(run.params, obs, mask, k)
            action = np.asarray(action)
            buf["obs"][t], buf["mask"][t], buf["actions"][t] = obs, mask, action
            buf["logp"][t], buf["values"][t] = logp, v
            obs, reward, terminated, truncated, info = envs.step(action)
            done = terminated | truncated
            mask = info["action_mask"].astype(np.bool_)
            buf["rewards"][t], buf["dones"][t] = reward, done
            if done.any():
                run.episodes += int(done.sum())
                recent.extend((reward[done] > 0).astype(float).tolist())
        run.timesteps += steps_per_update
        lr = args.learning_rate * (1.0 - 0.9 * progress() if args.anneal_lr else 1.0)
        key, k = jax.random.split(key)
        run.params, opt_state, stats = update(
            run.params,
            opt_state,
            {name: jnp.asarray(a) for name, a in buf.items()},
            value(run.params, obs),
            jnp.float32(lr),
            k,
        )
        run.updates += 1
        if not args.quiet and run.updates % 20 == 0:
            rate = float(np.mean(recent[-2000:])) if recent else float("nan")
            s = {name: float(x) for name, x in stats.items()}
            print(
                f"update {run.updates:>5} {elapsed() / 60:5.2f} min {run.timesteps:>9,} steps "
                f"{run.timesteps / elapsed():>7,.0f}/s  training win rate {rate:.1%}  "
                f"entropy {s['entropy']:.2f} kl {s['kl']:.4f} value loss {s['v']:.3f}",
                flush=True,
            )
        if progress() >= points / CURVE_POINTS:
            curve_point()
            while progress() >= points / CURVE_POINTS:
                points += 1
    if stop.requested:
        run.stopped_by = "ctrl-c"
    envs.close()
    run.seconds = elapsed()
    if not run.curve or run.curve[-1]["timesteps"] != run.timesteps:
        curve_point()
    return run


# -- files ----------------------------------------------------------------------------------


def save_params(path: Path, params: Any, header: dict[str, Any]) -> None:
    body = flax.serialization.to_bytes(params)
    atomic_write(path, seal(PARAMS_KIND, PARAMS_VERSION, header, body), "PPO parameters")


def read_params(path: Path) -> tuple[dict[str, Any], bytes]:
    """The header and the serialised parameters of a file ``save_params`` wrote (checked:
    its kind, version and checksums)."""
    sealed = read_sealed(path, PARAMS_KIND, PARAMS_VERSION, "PPO parameters")
    if sealed is None:
        sys.exit(f"no PPO parameters at {path}")
    return sealed


def plot_curve(path: Path, curve: list[dict[str, Any]], final: dict[str, Any] | None) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = [p["minutes"] for p in curve]
    y = [p["win_rate"] for p in curve]
    low = [p["interval95"][0] for p in curve]
    high = [p["interval95"][1] for p in curve]
    fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=120)
    ax.fill_between(x, low, high, alpha=0.25, label="95% Wilson interval")
    ax.plot(x, y, marker="o", label="win rate against greedy")
    if final is not None and x:
        lo, hi = final["interval95"]
        ax.errorbar(
            [x[-1]],
            [final["win_rate"]],
            yerr=[[final["win_rate"] - lo], [hi - final["win_rate"]]],
            fmt="s",
            color="black",
            capsize=4,
            label=f"final, {final['games']} games",
        )
    ax.axhline(0.5, color="grey", linewidth=0.8, linestyle="--")
    ax.axhline(0.7, color="green", linewidth=0.8, linestyle=":", label="the goal, 70%")
    ax.set_xlabel("training minutes")
    ax.set_ylabel("win rate against greedy")
    ax.set_ylim(0, 1)
    ax.set_title("PPO on 5 x 5 Color Wars (half the games as first mover)")
    ax.legend(loc="lower right")
    fig.tight_layout()
    with atomic_open(path, "learning curve") as f:
        fig.savefig(f, format="png")
    plt.close(fig)


def hardware(note: str) -> dict[str, Any]:
    model = platform.processor() or "unknown"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                k, _, v = line.partition(":")
                if k.strip() == "model name":
                    model = v.strip()
                    break
    except OSError:
        pass
    out: dict[str, Any] = {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "cpu_model": model,
        "jax_devices": [str(d) for d in jax.devices()],
    }
    if hasattr(os, "getloadavg"):
        out["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    if note:
        out["note"] = note
    return out


def commit() -> str:
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return head or "unknown"


# -- main -----------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    wall = time.perf_counter()
    for path, what in (
        (args.save, "PPO parameters"),
        (args.json, "results"),
        (args.curve, "curve"),
    ):
        if path is not None:
            check_output(path, what)  # before the work, not after it
    if args.curve is not None:
        import matplotlib  # noqa: F401  (fail now, not after the training)

    loaded = None
    if args.load is not None:
        loaded = read_params(args.load)
        args.hidden, args.lookahead = int(loaded[0]["hidden"]), int(loaded[0]["lookahead"])
    agent = Agent(hidden=args.hidden)
    key = jax.random.PRNGKey(args.seed)
    params = agent.init(key, jnp.zeros((1, planes(args.lookahead), HEIGHT, WIDTH), jnp.uint8))
    optimiser = make_optimiser(args.max_grad_norm)(learning_rate=args.learning_rate)
    settings = Settings(
        num_minibatches=args.num_minibatches,
        update_epochs=args.update_epochs,
        clip_coef=args.clip_coef,
        ent_coef=args.ent_coef,
        vf_coef=args.vf_coef,
        gamma=args.gamma,
        gae_lambda=args.gae_lambda,
    )
    functions = make_functions(agent, optimiser, settings)
    best = functions[1]
    with StopOnCtrlC() as stop:
        try:
            if loaded is not None:
                header, body = loaded
                params = flax.serialization.from_bytes(params, body)
                run = Run(params, timesteps=int(header["timesteps"]), stopped_by="loaded")
            else:
                if not args.quiet:
                    budget = f"{args.minutes:g} minutes" if args.minutes else "no time limit"
                    steps = f", {args.total_timesteps:,} steps" if args.total_timesteps else ""
                    print(
                        f"training against {args.opponents} on {args.num_envs} environments "
                        f"({budget}{steps}), seed {args.seed}",
                        flush=True,
                    )
                run = train(args, agent, functions, params, optimiser, stop)
            stop.requested = True  # from now on Ctrl-C aborts
            result = versus_greedy(
                best, run.params, args.eval_games, 2**40 + args.seed, args.lookahead
            )
            report(args, run, result, wall)
        except KeyboardInterrupt:
            print("aborted; no files written", file=sys.stderr)
            return 130
    return 0


def report(args: argparse.Namespace, run: Run, result: dict[str, Any], wall: float) -> None:
    """Prints the results and writes the files asked for."""
    lo, hi = result["interval95"]
    print(
        f"timesteps {run.timesteps:,}, training {run.seconds / 60:.2f} min "
        f"({run.updates} updates, stopped by {run.stopped_by})"
    )
    print(
        f"win rate against greedy: {result['win_rate']:.1%} "
        f"({result['wins']}/{result['games']}; 95% CI {lo:.1%} - {hi:.1%}); "
        f"as first mover {result['first_mover']['wins']}/{result['first_mover']['games']}, "
        f"as second {result['second_mover']['wins']}/{result['second_mover']['games']}",
        flush=True,
    )
    data = {
        "example": "ppo",
        "commit": commit(),
        "date": time.strftime("%Y-%m-%d", time.gmtime()),
        "board": {"width": WIDTH, "height": HEIGHT, "rules": RULES},
        "timesteps": run.timesteps,
        "updates": run.updates,
        "episodes": run.episodes,
        "minutes": run.seconds / 60,
        "wall_minutes": (time.perf_counter() - wall) / 60,
        "stopped_by": run.stopped_by,
        "evaluation": result,
        "win_rate": result["win_rate"],
        "interval95": result["interval95"],
        "curve": run.curve,
        "config": {
            k: str(v) if isinstance(v, Path) else v
            for k, v in vars(args).items()
            if k not in ("opponent_players",)
        },
        "hardware": hardware(args.note),
        "versions": {
            "colorwars": colorwars.__version__,
            "python": platform.python_version(),
            "jax": jax.__version__,
            "flax": flax.__version__,
            "optax": optax.__version__,
            "gymnasium": gymnasium.__version__,
            "numpy": np.__version__,
        },
    }
    if args.save is not None:
        header = {k: data[k] for k in ("board", "timesteps", "win_rate", "interval95")}
        header |= {"hidden": args.hidden, "lookahead": args.lookahead, "seed": args.seed}
        save_params(args.save, run.params, header)
    if args.curve is not None and run.curve:
        plot_curve(args.curve, run.curve, result)
    # What the docs read (docs/hooks.py): the figures, and the machine as the benchmarks'
    # result files name it.
    hw = data["hardware"]
    data["quick"] = False
    data["machine"] = {k: hw.get(k) for k in ("cpu_count", "cpu_model", "platform", "machine")}
    data["figures"] = {
        "win_rate": result["win_rate"], "low": result["interval95"][0],
        "high": result["interval95"][1], "eval_games": result["games"],
        "minutes": run.seconds / 60, "timesteps": run.timesteps,
    }  # fmt: skip
    if args.json is not None:
        atomic_write(args.json, json.dumps(data, indent=2, sort_keys=True) + "\n", "results")


if __name__ == "__main__":
    sys.exit(main())
