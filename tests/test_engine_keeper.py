"""The match runner's EngineKeeper: engines that run on from one match to the next."""

from __future__ import annotations

import asyncio
import shlex
import sys
from pathlib import Path

from uci_engine.tools.args import parse_args
from uci_engine.tools.match import match_summary, run_match
from uci_engine.tools.tournament import EngineKeeper

FAKES = Path(__file__).parent / "fake_engines"
MOVER = f"{shlex.quote(sys.executable)} {FAKES / 'random_mover.py'}"


def _cfg(hash_a, hash_b, cmd=MOVER, stderr=None):
    cfg = parse_args(["-engine", f"cmd={cmd}", "name=a", f"option.Hash={hash_a}",
                      "-engine", f"cmd={cmd}", "name=b", f"option.Hash={hash_b}",
                      "-each", "proto=uci", "tc=1+0.01", "-games", "2", "-repeat",
                      "-maxmoves", "4", "-srand", "1", "-noprogress"])
    for spec in cfg.engines:
        spec.stderr = stderr
    return cfg


def _pids(keep):
    return sorted(inst.transport.get_pid() for idle in keep.idle.values() for inst in idle)


def test_kept_engines_play_the_next_match_with_its_options():
    async def main():
        keep = EngineKeeper()
        first = match_summary(await run_match(_cfg(16, 17), out=lambda line: None,
                                              sigint=False, keep=keep))
        pids = _pids(keep)
        assert len(pids) == 2 and first["draws"] == 2           # -maxmoves draws
        second = await run_match(_cfg(32, 33), out=lambda line: None, sigint=False, keep=keep)
        assert match_summary(second)["draws"] == 2
        assert _pids(keep) == pids                              # the same two processes
        kept = [inst for idle in keep.idle.values() for inst in idle]
        assert sorted(inst.protocol.config["Hash"] for inst in kept) == [32, 33]
        assert {inst.name for inst in kept} == {"a", "b"}
        # another option set (or command) does not take them: a third engine starts
        other = _cfg(8, 8)
        other.engines[1].options = {}
        await run_match(other, out=lambda line: None, sigint=False, keep=keep)
        assert len(_pids(keep)) == 3
        await keep.close()
        assert not keep.idle and not any(inst.alive for inst in kept)

    asyncio.run(main())


def test_a_dead_kept_engine_is_replaced():
    async def main():
        keep = EngineKeeper()
        await run_match(_cfg(16, 16), out=lambda line: None, sigint=False, keep=keep)
        dead = [inst for idle in keep.idle.values() for inst in idle]
        await dead[0].kill()
        res = match_summary(await run_match(_cfg(16, 16), out=lambda line: None,
                                            sigint=False, keep=keep))
        assert res["draws"] == 2 and res["faults"] == {} and res["opponent_faults"] == {}
        alive = [inst for idle in keep.idle.values() for inst in idle]
        assert len(alive) == 2 and dead[0] not in alive and dead[1] in alive
        await keep.close()

    asyncio.run(main())


def test_a_kept_engine_that_exited_by_itself_has_its_stderr_file_closed(tmp_path):
    async def main():
        keep = EngineKeeper()
        err = str(tmp_path / "err.log")
        await run_match(_cfg(16, 16, stderr=err), out=lambda line: None, sigint=False, keep=keep)
        kept = [inst for idle in keep.idle.values() for inst in idle]
        gone = kept[-1]                         # the first taken: its process ends by itself
        gone.transport.get_extra_info("subprocess").terminate()
        await asyncio.wait_for(asyncio.shield(gone.protocol.returncode), 10.0)
        assert not gone.alive and gone._stderr_fh is not None
        res = match_summary(await run_match(_cfg(16, 16, stderr=err), out=lambda line: None,
                                            sigint=False, keep=keep))
        assert res["draws"] == 2 and res["faults"] == {}
        assert gone._stderr_fh is None          # dropped and its file closed
        await keep.close()
        assert all(inst._stderr_fh is None for inst in kept)

    asyncio.run(main())
