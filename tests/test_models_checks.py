"""The shared parameter checks of bufferlab.models._checks: types, finiteness, interval ends, messages."""

import math
import re
from fractions import Fraction

import numpy as np
import pytest

from bufferlab.errors import BufferLabError
from bufferlab.models._checks import (
    as_float_array,
    check_int,
    check_integer,
    check_open_interval,
    check_range,
    check_real,
)

# ------------------------------------------------------------------------------------------ check_real


@pytest.mark.parametrize("value", [0.25, 1, np.float64(0.25), np.float32(0.5), np.int64(3), np.array(0.75),
                                   Fraction(1, 4)])
def test_real_accepts_real_scalars(value):
    x = check_real("x", value)
    assert type(x) is float and x == float(value)


@pytest.mark.parametrize("value", [True, False, np.bool_(True), "0.5", b"1", None, 1 + 0j, [0.5],
                                   np.array([0.5]), np.array("0.5")])
def test_real_rejects_non_real(value):
    with pytest.raises(BufferLabError, match=r"^x must be a real number, got "):
        check_real("x", value)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, np.float64("nan")])
def test_real_rejects_non_finite(value):
    with pytest.raises(BufferLabError, match=r"^x must be finite, got "):
        check_real("x", value)


@pytest.mark.parametrize(
    "kwargs,inside,outside,span",
    [
        (dict(low=0.0, high=1.0), [0.0, 0.5, 1.0], [-1e-12, 1.0 + 1e-12], "[0, 1]"),
        (dict(low=0.0, high=1.0, low_open=True), [1e-12, 1.0], [0.0], "(0, 1]"),
        (dict(low=0.0, high=1.0, high_open=True), [0.0, 0.999], [1.0], "[0, 1)"),
        (dict(low=0.0, high=0.5, low_open=True, high_open=True), [0.25], [0.0, 0.5], "(0, 0.5)"),
        (dict(low=1.0), [1.0, 1e300], [0.999], "[1, inf)"),
        (dict(low=0.0, low_open=True), [1e-300], [0.0, -2.0], "(0, inf)"),
        (dict(high=2.0, high_open=True), [-1e300, 1.5], [2.0], "(-inf, 2)"),
    ],
)
def test_real_interval_ends(kwargs, inside, outside, span):
    for v in inside:
        assert check_real("p", v, **kwargs) == v
    for v in outside:
        message = f"p must be in {span}, got {v}"
        with pytest.raises(BufferLabError, match=f"^{re.escape(message)}$"):
            check_real("p", v, **kwargs)


def test_real_no_bounds_accepts_any_finite_number():
    assert check_real("x", -1e308) == -1e308


def test_real_message_keeps_the_description_note_and_span():
    with pytest.raises(BufferLabError) as exc:
        check_real("beta (discount factor)", 1.0, 0.0, 1.0, low_open=True, high_open=True,
                   span="the open interval (0, 1)")
    assert str(exc.value) == "beta (discount factor) must be in the open interval (0, 1), got 1.0"
    with pytest.raises(BufferLabError) as exc:
        check_real("alpha", np.float64(0.5), 0.0, 0.5, high_open=True, note="(Eun & Wang 2008)")
    assert str(exc.value) == "alpha must be in [0, 0.5) (Eun & Wang 2008), got 0.5"


# --------------------------------------------------------------------------------------- check_integer


@pytest.mark.parametrize("value,expected", [(3, 3), (np.int64(3), 3), (np.uint8(3), 3), (3.0, 3),
                                            (np.float64(3.0), 3), (np.array(3), 3), (10**20, 10**20)])
def test_integer_accepts_integers_and_integral_floats(value, expected):
    n = check_integer("n", value)
    assert type(n) is int and n == expected


@pytest.mark.parametrize("value", [True, False, np.bool_(True), 2.5, math.nan, math.inf, "3", None, [3],
                                   np.array([3])])
def test_integer_rejects_bools_fractions_and_non_numbers(value):
    with pytest.raises(BufferLabError, match=r"^n must be an integer >= 0, got "):
        check_integer("n", value, 0)


def test_integer_bounds_are_inclusive():
    assert check_integer("n", 1) == 1
    with pytest.raises(BufferLabError, match=r"^n must be an integer >= 1, got 0$"):
        check_integer("n", 0)
    assert check_integer("k", 0, 0, 9) == 0 and check_integer("k", 9, 0, 9) == 9
    with pytest.raises(BufferLabError, match=r"^k must be an integer in \[0, 9\], got 10$"):
        check_integer("k", 10, 0, 9)
    with pytest.raises(BufferLabError, match=r"^k must be an integer in \[0, 9\], got -1$"):
        check_integer("k", -1, 0, 9)


def test_integer_message_keeps_the_description_and_note():
    with pytest.raises(BufferLabError) as exc:
        check_integer("w_max", 5, 12, note="(> CT + 1 = 11)")
    assert str(exc.value) == "w_max must be an integer >= 12 (> CT + 1 = 11), got 5"
    with pytest.raises(BufferLabError) as exc:
        check_integer("n_max (maximum window N)", np.int64(0))
    assert str(exc.value) == "n_max (maximum window N) must be an integer >= 1, got 0"


# ------------------------------------------------------------------------------------------- arrays


def test_array_checks_are_element_wise():
    np.testing.assert_array_equal(check_range("r", [0.0, 1.0], 0.0, 1.0), [0.0, 1.0])
    with pytest.raises(BufferLabError, match=r"^r must be in \[0, 1\), got \[0, 1\]$"):
        check_range("r", [0.0, 1.0], 0.0, 1.0, high_open=True)
    with pytest.raises(BufferLabError, match=r"^rho must be in \(0, 1\), got 0$"):
        check_open_interval("rho", 0.0, 0.0, 1.0)
    with pytest.raises(BufferLabError, match=r"^B must be in \[0, inf\), got an array with min -1 and max 6"):
        check_range("B", np.arange(-1, 7), 0.0)


def test_array_checks_reject_bools_and_non_finite():
    for value in (True, [True, False], np.array([False])):
        with pytest.raises(BufferLabError, match="must be a number or an array of numbers"):
            as_float_array("x", value)
    with pytest.raises(BufferLabError, match=r"^x must be finite, got \[1, nan\]$"):
        as_float_array("x", [1.0, math.nan])
    with pytest.raises(BufferLabError, match=r"^x must be finite, got an array of 10 values, 1 not finite$"):
        as_float_array("x", np.r_[np.zeros(9), np.inf])


def test_array_int_accepts_integral_floats_only():
    np.testing.assert_array_equal(check_int("K", [1.0, 2.0], 1), [1, 2])
    with pytest.raises(BufferLabError, match=r"^K must be an integer, got 2.5$"):
        check_int("K", 2.5, 1)
    with pytest.raises(BufferLabError, match=r"^K must be an integer in \[0, 3\], got \[0, 4\]$"):
        check_int("K", [0, 4], 0, 3)
