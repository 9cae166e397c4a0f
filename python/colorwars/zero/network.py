"""The learned evaluation: a small fully convolutional network, its input features and its
file, with inference in numpy (no training extra needed to play).

The network reads a position from the point of view of the player to move and returns one
logit per cell (the policy) and a value from -1 to 1 (who wins). Layers, in order:

- a 3x3 convolution from ``FEATURES`` input planes to ``channels`` planes, ReLU;
- ``blocks`` residual blocks, each two 3x3 convolutions (``x + conv(relu(conv(x)))``, ReLU);
- the policy head: a 1x1 convolution to one plane, its cells the logits;
- the value head: the mean and the maximum of each plane over the board (so any board size
  gives the same number of features), a dense layer of ``hidden`` units, ReLU, one unit, tanh.

Every convolution is zero-padded ("same"): with the edge and corner planes of the input, one
set of weights plays every board. Kernels are stored HWIO (height, width, in, out), as Flax
trains them; numpy inference runs each 3x3 convolution as one matrix product of the nine
shifted copies of the board (im2col), on channels-last arrays.
"""

from __future__ import annotations

import io
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from colorwars import _core
from colorwars._files import atomic_write, read_sealed, seal, unseal
from colorwars.errors import FileError, InvalidNetworkError

__all__ = ["FEATURES", "Network", "degrees", "features", "load", "random_network"]

KIND = "network"
VERSION = 1
FEATURES = 10
"""Input planes: the mover's and the opponent's orbs (/ 4), their loaded cells (one orb from
bursting), their owned cells, the corners, the edges, and two constant planes saying whether
the mover and the opponent have no orbs at all (the opening of a game)."""

F32 = npt.NDArray[np.float32]


def degrees(height: int, width: int) -> npt.NDArray[np.int8]:
    """Each cell's number of neighbours (its critical mass under both rule sets)."""
    d = np.full((height, width), 4, dtype=np.int8)
    d[0, :] -= 1
    d[-1, :] -= 1
    d[:, 0] -= 1
    d[:, -1] -= 1
    return d


def features(planes: npt.NDArray[np.uint8]) -> F32:
    """The network's input, channels last ``(B, H, W, FEATURES)`` float32, from two-player
    ``planes`` ``(B, 2, H, W)`` (plane 0 the player to move: ``colorwars.views.planes`` and
    the PUCT evaluator's layout)."""
    _check_planes(planes)
    b, _, h, w = planes.shape
    mover = planes[:, 0].astype(np.float32)
    other = planes[:, 1].astype(np.float32)
    deg = degrees(h, w).astype(np.float32)
    out = np.empty((b, h, w, FEATURES), dtype=np.float32)
    out[..., 0] = mover * 0.25
    out[..., 1] = other * 0.25
    out[..., 2] = (mover > 0) & (mover >= deg - 1)
    out[..., 3] = (other > 0) & (other >= deg - 1)
    out[..., 4] = mover > 0
    out[..., 5] = other > 0
    out[..., 6] = deg == 2
    out[..., 7] = deg == 3
    out[..., 8] = (mover.reshape(b, h * w).sum(axis=1) == 0)[:, None, None]
    out[..., 9] = (other.reshape(b, h * w).sum(axis=1) == 0)[:, None, None]
    return out


def _check_planes(planes: npt.NDArray[Any]) -> None:
    shape = planes.shape
    if planes.ndim != 4 or shape[1] != 2 or not (2 <= shape[2] <= 64 and 2 <= shape[3] <= 64):
        raise InvalidNetworkError(
            f"the network reads two-player planes (B, 2, H, W) of boards of sides 2 to 64, "
            f"not shape {shape}"
        )


LIMITS = {"channels": 512, "blocks": 64, "hidden": 4096}
"""The largest layout a network may have (each at least 1)."""


def _check_layout(rules: object, channels: object, blocks: object, hidden: object) -> None:
    if rules not in ("colorwars", "classic"):
        raise InvalidNetworkError(
            f"invalid network: rules {rules!r}: expected 'colorwars' or 'classic'"
        )
    for name, v in (("channels", channels), ("blocks", blocks), ("hidden", hidden)):
        if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= LIMITS[name]:
            raise InvalidNetworkError(
                f"invalid network: {name} {v!r}: expected a whole number from 1 to {LIMITS[name]}"
            )


def _names(blocks: int) -> list[str]:
    names = ["stem"]
    for i in range(blocks):
        names += [f"block{i}a", f"block{i}b"]
    return names


def shapes(channels: int, blocks: int, hidden: int) -> dict[str, tuple[int, ...]]:
    """Every parameter's name and shape."""
    out: dict[str, tuple[int, ...]] = {}
    for k, name in enumerate(_names(blocks)):
        out[f"{name}.kernel"] = (3, 3, FEATURES if k == 0 else channels, channels)
        out[f"{name}.bias"] = (channels,)
    out["policy.kernel"] = (1, 1, channels, 1)
    out["policy.bias"] = (1,)
    out["value1.kernel"] = (2 * channels, hidden)
    out["value1.bias"] = (hidden,)
    out["value2.kernel"] = (hidden, 1)
    out["value2.bias"] = (1,)
    return out


def _conv3(x: F32, kernel: F32, bias: F32) -> F32:
    """A zero-padded 3x3 convolution of channels-last ``x`` by an HWIO ``kernel``."""
    b, h, w, c = x.shape
    p = np.zeros((b, h + 2, w + 2, c), dtype=np.float32)
    p[:, 1:-1, 1:-1] = x
    cols = np.concatenate(
        [p[:, dy : dy + h, dx : dx + w] for dy in range(3) for dx in range(3)], -1
    )
    return cols.reshape(b * h * w, 9 * c) @ kernel.reshape(9 * c, -1) + bias


@dataclass
class Network:
    """A network's weights and what is known of it: the ``rules`` it was trained for
    (``"colorwars"`` or ``"classic"``), the boards it saw most, and its training record
    (``info``: games, positions, seconds, the command that made it)."""

    rules: str
    channels: int
    blocks: int
    hidden: int
    params: dict[str, F32]
    info: dict[str, Any] = field(default_factory=dict)
    _native: _core.NativeNet | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _check_layout(self.rules, self.channels, self.blocks, self.hidden)
        if not isinstance(self.params, dict) or not isinstance(self.info, dict):
            raise InvalidNetworkError("invalid network: params and info must be dicts")
        want = shapes(self.channels, self.blocks, self.hidden)
        if set(self.params) != set(want):
            missing = sorted(set(want) - set(self.params))
            extra = sorted(set(self.params) - set(want))
            raise InvalidNetworkError(
                f"invalid network parameters: missing {missing}, unexpected {extra}"
            )
        for name, shape in want.items():
            try:
                a = np.ascontiguousarray(self.params[name], dtype=np.float32)
            except (TypeError, ValueError) as e:
                raise InvalidNetworkError(f"invalid network parameter {name}: {e}") from None
            if a.shape != shape:
                raise InvalidNetworkError(
                    f"invalid network parameter {name}: shape {a.shape}, expected {shape}"
                )
            if not np.isfinite(a).all():
                raise InvalidNetworkError(f"invalid network parameter {name}: NaN or infinity")
            self.params[name] = a

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without its native inference, which is rebuilt where it is used."""
        state = dict(self.__dict__)
        state["_native"] = None
        return state

    @property
    def size(self) -> int:
        """The number of parameters."""
        return sum(a.size for a in self.params.values())

    @property
    def native(self) -> _core.NativeNet:
        """The native inference of these weights (built once)."""
        if self._native is None:
            self._native = _core.NativeNet(self.channels, self.blocks, self.hidden, self.params)
        return self._native

    def forward(self, planes: npt.NDArray[np.uint8]) -> tuple[F32, F32]:
        """``(logits (B, cells), values (B,))`` float32 for two-player ``planes``
        ``(B, 2, H, W)``: the PUCT evaluator's contract, so ``PUCT(network)`` works. Runs
        natively (``forward_numpy`` is the reference it is checked against)."""
        planes = np.asarray(planes)
        _check_planes(planes)
        if planes.dtype != np.uint8 and (
            planes.dtype.kind not in "iu"
            or planes.min(initial=0) < 0
            or planes.max(initial=0) > 255
        ):
            raise InvalidNetworkError(
                f"the network reads orb counts as uint8 planes, not {planes.dtype} values"
            )
        logits, values = self.native.forward(np.ascontiguousarray(planes, dtype=np.uint8))
        return logits, values

    def forward_numpy(self, planes: npt.NDArray[np.uint8]) -> tuple[F32, F32]:
        """``forward`` in numpy alone: the reference implementation."""
        _check_planes(planes)
        b, _, h, w = planes.shape
        p = self.params
        x = np.maximum(_conv3(features(planes), p["stem.kernel"], p["stem.bias"]), 0)
        x = x.reshape(b, h, w, self.channels)
        for i in range(self.blocks):
            y = np.maximum(_conv3(x, p[f"block{i}a.kernel"], p[f"block{i}a.bias"]), 0)
            y = _conv3(y.reshape(x.shape), p[f"block{i}b.kernel"], p[f"block{i}b.bias"])
            x = np.maximum(x + y.reshape(x.shape), 0)
        flat = x.reshape(b, h * w, self.channels)
        logits = flat @ p["policy.kernel"].reshape(self.channels) + p["policy.bias"][0]
        pooled = np.concatenate([flat.mean(axis=1), flat.max(axis=1)], axis=1)
        hid = np.maximum(pooled @ p["value1.kernel"] + p["value1.bias"], 0)
        values = np.tanh(hid @ p["value2.kernel"] + p["value2.bias"])[:, 0]
        return logits.astype(np.float32, copy=False), values.astype(np.float32, copy=False)

    def __call__(
        self, planes: npt.NDArray[np.uint8], mask: npt.NDArray[np.uint8]
    ) -> tuple[F32, F32]:
        """The PUCT evaluator: ``evaluator(planes, mask) -> (logits, values)``."""
        return self.forward(planes)

    def to_bytes(self) -> bytes:
        """The sealed file's bytes (``colorwars network 1``: a JSON header with the layout
        and the training record, then the weights as an ``.npz``, each under a digest)."""
        body = io.BytesIO()
        arrays: dict[str, Any] = dict(self.params)
        np.savez(body, **arrays)
        header = {
            "rules": self.rules,
            "channels": self.channels,
            "blocks": self.blocks,
            "hidden": self.hidden,
            "info": self.info,
        }
        return seal(KIND, VERSION, header, body.getvalue())

    def save(self, path: str | os.PathLike[str]) -> None:
        """Writes the network to ``path`` (atomically, sealed)."""
        atomic_write(path, self.to_bytes(), "network")

    @staticmethod
    def from_bytes(data: bytes, path: str | os.PathLike[str] = "<bytes>") -> Network:
        """A network from a sealed file's bytes; ``FileError`` naming ``path`` if they are
        damaged or not a network."""
        header, body = unseal(path, data, KIND, VERSION, "network")
        return _from_parts(header, body, path)


def _from_parts(header: dict[str, Any], body: bytes, path: str | os.PathLike[str]) -> Network:
    def bad(reason: str) -> FileError:
        return FileError(f"invalid network {os.fspath(path)}: {reason}")

    try:
        rules, channels = header["rules"], header["channels"]
        blocks, hidden, info = header["blocks"], header["hidden"], header.get("info", {})
    except KeyError as e:
        raise bad(f"its header has no {e.args[0]!r}") from None
    try:
        _check_layout(rules, channels, blocks, hidden)
    except InvalidNetworkError as e:
        raise bad(str(e).removeprefix("invalid network: ")) from None
    if not isinstance(info, dict):
        raise bad("its info is not a table")
    try:
        with np.load(io.BytesIO(body), allow_pickle=False) as npz:
            params = {name: npz[name] for name in npz.files}
    except Exception as e:
        raise bad(f"its weights cannot be read ({e})") from None
    try:
        return Network(rules, channels, blocks, hidden, params, info)
    except InvalidNetworkError as e:
        raise bad(str(e)) from None


def load(path: str | os.PathLike[str]) -> Network:
    """The network in the file at ``path``; ``FileError`` naming it if it is missing,
    damaged or not a network."""
    found = read_sealed(path, KIND, VERSION, "network")
    if found is None:
        raise FileError(f"cannot read network {os.fspath(path)}: no such file")
    return _from_parts(*found, path)


def random_network(
    rules: str = "colorwars", channels: int = 32, blocks: int = 3, hidden: int = 64, seed: int = 0
) -> Network:
    """A network of random weights (He initialisation; the training's starting point in
    tests and the numpy/JAX agreement check)."""
    rng = np.random.default_rng(seed)
    params: dict[str, F32] = {}
    for name, shape in shapes(channels, blocks, hidden).items():
        if name.endswith("bias"):
            params[name] = np.zeros(shape, np.float32)
        else:
            fan_in = int(np.prod(shape[:-1]))
            params[name] = (rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)
    return Network(rules, channels, blocks, hidden, params)


SHIPPED = Path(__file__).resolve().parent.parent / "networks"
"""The folder of the networks shipped in the wheel (one per rule set: ``<rules>.net``)."""
