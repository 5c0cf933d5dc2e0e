"""Go's strconv.FormatFloat(v, 'g', -1, 64) with negative zero written as
0, the format of episodes.csv's numbers (internal/numtext.Shortest), so
that the tests compare cells byte for byte."""

import math
from decimal import Decimal


def go_g(v):
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "+Inf" if v > 0 else "-Inf"
    if v == 0:  # -0 too: a table writes no signed zero
        return "0"
    sign = "-" if v < 0 else ""
    t = Decimal(repr(abs(v))).normalize().as_tuple()  # repr: the shortest digits
    digits = "".join(map(str, t.digits))
    nd, dp = len(digits), len(digits) + t.exponent
    exp = dp - 1
    if exp < -4 or exp >= 6:  # Go's shortest %g decides at precision 6
        mant = digits[0] + ("." + digits[1:] if nd > 1 else "")
        return f"{sign}{mant}e{'-' if exp < 0 else '+'}{abs(exp):02d}"
    if dp <= 0:
        return f"{sign}0.{'0' * -dp}{digits}"
    if dp >= nd:
        return sign + digits + "0" * (dp - nd)
    return f"{sign}{digits[:dp]}.{digits[dp:]}"
