"""The UCI option table (uci_engine/options.py): every option refuses a bad value through the table
(``info string error:``, the previous value and state kept), and values set while the kernels
load reach the engine at the hand-over."""
import io
from pathlib import Path

import pytest

from uci_engine import strength_params
from uci_engine import uci as uci_mod
from uci_engine.options import EMPTY, Option, OptionError, Options

from conftest import gated_uci_session

ROOT_DATA = Path(__file__).resolve().parent / "data"


def _bad_values(opt):
    """Values the table must refuse for ``opt`` (a spin: not a number, below, above its range;
    a check: not true/false; a file option: a file that does not load)."""
    if opt.kind == "spin":
        return ["many", str(opt.lo - 1), str(opt.hi + 1), ""]
    if opt.kind == "check":
        return ["maybe", "1", ""]
    if opt.kind == "string":
        return ["/no/such/file-or-directory"]
    return []


@pytest.fixture(scope="module")
def session():
    out = io.StringIO()
    u = uci_mod.UCI(out=out)
    assert u.ready.wait(300) and u.engine is not None, u.load_error
    return u, out


def _option_names():
    """The names in the session's table, read without starting a session (no effect runs)."""
    unstarted = uci_mod.UCI.__new__(uci_mod.UCI)
    unstarted.tablebases = None
    return [o.name for o in unstarted._option_rows()]


@pytest.mark.parametrize("name", _option_names())
def test_every_option_refuses_bad_values_through_the_table(session, name):
    u, out = session
    opt = u.options[name]
    bad = _bad_values(opt)
    if not bad:
        assert opt.kind == "button"
        return
    for raw in bad:
        before = opt.value
        lines_before = len(out.getvalue().splitlines())
        u.handle(f"setoption name {name} value {raw}")
        new = out.getvalue().splitlines()[lines_before:]
        assert len(new) == 1 and new[0].startswith("info string error:"), (raw, new)
        assert opt.value == before, raw
    # and the table itself raises, without touching the value
    with pytest.raises(OptionError):
        u.options.set(name, bad[0])


def test_file_options_keep_their_state_when_a_file_fails(session):
    u, out = session
    u.handle(f"setoption name SyzygyPath value {ROOT_DATA / 'syzygy'}")
    assert u.tablebases.max_pieces >= 3
    u.handle("setoption name SyzygyPath value /no/such/dir")
    assert u.options["SyzygyPath"].value == str(ROOT_DATA / "syzygy")
    assert u.tablebases.max_pieces >= 3
    net = u.engine.net
    u.handle("setoption name EvalFile value /no/such.nnue")
    assert u.engine.net is net
    assert "keeping EvalFile" in out.getvalue().splitlines()[-1]


def test_table_parses_by_kind():
    t = Options([Option("S", "spin", 5, 1, 9), Option("C", "check", False),
                 Option("T", "string", EMPTY), Option("B", "button")])
    assert t.set("s", " 7 ").value == 7
    assert t.set("C", "TRUE").value is True
    assert t.set("t", "  a path with spaces ").value == "a path with spaces"
    assert t.set("t", "").value == EMPTY
    pressed = []
    t["B"].on_set = pressed.append
    t.set("b", None)
    assert pressed == [None]
    with pytest.raises(OptionError, match="unknown option"):
        t.set("nope", "1")
    with pytest.raises(OptionError, match="needs a value"):
        t.set("S", None)


def test_values_set_while_loading_reach_the_engine(monkeypatch):
    """Every option with an engine effect, set before the kernels finish loading, is applied
    at the hand-over through the same table."""
    elo = (strength_params.ELO_MIN + strength_params.ELO_MAX) // 2  # inside the fitted range
    u, out, gate, arrived = gated_uci_session(monkeypatch, cold=False)
    assert arrived.wait(300)
    for line in ("Threads value 2", "Hash value 2", "UCI_Chess960 value true",
                 "UCI_LimitStrength value true", f"UCI_Elo value {elo}",
                 "EvalFile value gen1_h128.nnue", "Use NNUE value false"):
        u.handle(f"setoption name {line}")
    assert u.engine is None
    gate.set()
    assert u.ready.wait(300) and u.engine is not None
    eng = u.engine
    assert eng.threads == 2 and eng.tt.nbytes == 2 << 20 and eng.chess960
    assert eng.limit_strength and eng.uci_elo == elo and not eng.use_nnue
    assert eng.net is u.net and u.options["EvalFile"].value == "gen1_h128.nnue"
    assert not [ln for ln in out.getvalue().splitlines() if "error" in ln]
