"""The room's light as a camera records it: the light's colour temperature, partly
taken out by the camera's white balance.

Why not albumentations' ``PlanckianJitter`` as it comes: its table (from the Planckian
jitter paper) gives 3000 K a blue of 0.0013, 40 times below the trend of its own
neighbours (3500 K 0.1665, 4000 K 0.2513, 4500 K 0.3154: about 0.06 at 3000 K), and
it applies the whole cast, as a raw sensor with no white balance would. Between 3000
and 3500 K (1 scene in 26) that left a picture with almost no blue (x0.003 at 3000
K), and the additive darkening after it took the rest: a blue card's symbol came out
with blue 0 of 255, the same as a green card's. No phone or webcam takes such a
picture: every one white-balances, and under a bulb it leaves a warm cast, not all
of it. Those scenes held 7 of the 12 misreads of the in-distribution test set (session
26). Here the table's 3000 K blue is put back on its trend, and the camera takes out a
random share of the cast (in log gain), as auto white balance does.
"""

from __future__ import annotations

import functools
import os
from typing import Any

import numpy as np

# The blackbody table's 3000 K blue on the trend of its 3500, 4000 and 4500 K entries
# (quadratic extrapolation; the table's own 0.0013 is off that trend by 40 times).
WARMEST_BLUE = 0.0613
# The share of the cast (log gain) the camera's white balance takes out: a phone under
# a bulb keeps some amber; under daylight or shade it keeps some blue.
WHITE_BALANCE = (0.3, 0.8)
TEMPERATURES = (3000, 15000)
WARM_SHARE, WHITE_K = 0.4, 6000  # as albumentations draws them: 40% from 3000-6000 K


@functools.lru_cache(maxsize=1)
def _table() -> tuple[np.ndarray, np.ndarray]:
    """The blackbody table as (temperatures, RGB rows), its 3000 K blue on the trend;
    built once, since every scene's light is read from it."""
    os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")
    from albumentations.augmentations.pixel.functional import PLANCKIAN_COEFFS

    table = dict(sorted(PLANCKIAN_COEFFS["blackbody"].items()))
    kelvins = np.array(list(table), np.float64)
    rgb = np.array(list(table.values()), np.float64)
    rgb[kelvins == 3000, 2] = WARMEST_BLUE
    return kelvins, rgb


def cast(temperature: float) -> tuple[float, float]:
    """Red and blue gains (against green) of a light of ``temperature`` kelvin on a
    camera balanced for daylight, interpolated in the blackbody table."""
    kelvins, table = _table()
    red, green, blue = (np.interp(temperature, kelvins, table[:, c]) for c in range(3))
    return float(red / green), float(blue / green)


def recorded_gains(temperature: float, white_balance: float) -> np.ndarray:
    """RGB gains a camera records under the light, after its white balance took out
    ``white_balance`` (0-1) of the cast."""
    red, blue = cast(temperature)
    keep = 1.0 - white_balance
    return np.array([red ** keep, 1.0, blue ** keep], np.float32)


def room_light(p: float = 0.5) -> Any:
    """An albumentations transform (RGB pictures): the room light's colour as recorded."""
    os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")
    import albumentations as A

    class RoomLight(A.ImageOnlyTransform):  # type: ignore[misc]
        def get_params(self) -> dict[str, Any]:
            rnd = self.py_random
            if rnd.random() < WARM_SHARE:
                temperature = rnd.uniform(TEMPERATURES[0], WHITE_K)
            else:
                temperature = rnd.uniform(WHITE_K, TEMPERATURES[1])
            return {"gains": recorded_gains(temperature, rnd.uniform(*WHITE_BALANCE))}

        def apply(self, img: np.ndarray, gains: np.ndarray, **params: Any) -> np.ndarray:
            return np.clip(img.astype(np.float32) * gains, 0, 255).astype(np.uint8)

        def get_transform_init_args_names(self) -> tuple[str, ...]:
            return ()

    return RoomLight(p=p)
