"""The reader's second look: an unsure card is read again at quarter turns."""

import numpy as np
import pytest

from companion.vision.second_look import quarter_turns, read_faces


def _marked(k: int) -> np.ndarray:
    """A crop whose bright corner tells how far it was turned from upright."""
    crop = np.zeros((8, 8, 3), np.uint8)
    crop[0, 0] = 255
    return np.ascontiguousarray(np.rot90(crop, k))


def _reader(calls: list[int]):
    """A fake classifier of two faces, '6' and '9': sure and right when the crop
    is upright or turned by 90 or 270 degrees, fooled (reads '9' at 0.6) upright-down."""
    def probabilities(crops: list[np.ndarray]) -> np.ndarray:
        calls.append(len(crops))
        out = []
        for c in crops:
            upside_down = c[-1, -1, 0] == 255
            out.append([0.4, 0.6] if upside_down else [0.97, 0.03])
        return np.array(out)
    return probabilities


def test_quarter_turns_are_the_three_other_angles():
    turned = quarter_turns(_marked(0))
    corners = [tuple(int(t[y, x, 0] == 255) for y, x in ((0, 0), (0, -1), (-1, -1), (-1, 0))) for t in turned]
    assert corners == [(0, 0, 0, 1), (0, 0, 1, 0), (0, 1, 0, 0)]  # 90, 180, 270 degrees


def test_an_unsure_six_is_read_right_after_the_second_look():
    calls: list[int] = []
    [(face, p)] = read_faces(_reader(calls), [_marked(2)], ["6", "9"])
    assert face == "6" and p == pytest.approx((0.4 + 3 * 0.97) / 4)
    assert calls == [1, 3]  # one read, then three turned reads


def test_a_clear_card_is_read_once():
    calls: list[int] = []
    assert read_faces(_reader(calls), [_marked(0), _marked(1)], ["6", "9"])[0][0] == "6"
    assert calls == [2]


def test_the_second_look_can_be_turned_off():
    calls: list[int] = []
    [(face, p)] = read_faces(_reader(calls), [_marked(2)], ["6", "9"], turn_below=0.0)
    assert (face, p) == ("9", 0.6) and calls == [1]


def test_no_crops_no_reads():
    calls: list[int] = []
    assert read_faces(_reader(calls), [], ["6", "9"]) == [] and calls == []
