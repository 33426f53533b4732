"""Slider backend choice (:mod:`uci_engine.cpu`) with monkeypatched py-cpuinfo dicts."""
import json
import os

import pytest

from uci_engine import backend, cpu


def _info(vendor="GenuineIntel", family=6, bmi2=True, arch="X86_64", raw="x86_64"):
    flags = ["avx2", "bmi1", "popcnt"] + (["bmi2"] if bmi2 else [])
    return {"arch": arch, "arch_string_raw": raw, "vendor_id_raw": vendor, "family": family,
            "model": 1, "flags": flags, "brand_raw": "test cpu"}


@pytest.fixture
def host(monkeypatch):
    """Set the CPU seen by cpu.choose: host(info_dict, llvm_bmi2=True)."""
    monkeypatch.delenv(cpu.OVERRIDE_ENV, raising=False)

    def set_host(info, llvm_bmi2=True):
        monkeypatch.setattr(cpu, "cpu_info", lambda use_cache=True: info)
        monkeypatch.setattr(cpu, "host_has_bmi2", lambda: llvm_bmi2)
    return set_host


def test_intel_bmi2_pext(host):
    host(_info())
    assert cpu.choose() == ("pext", "pext (bmi2, GenuineIntel family 6)", None)


def test_zen2_bmi2_black(host):
    host(_info("AuthenticAMD", 0x17))
    backend_, text, warning = cpu.choose()
    assert backend_ == "black" and warning is None
    assert text == "black (slow microcoded pext, AuthenticAMD family 23)"


def test_hygon_dhyana_black(host):
    host(_info("HygonGenuine", 0x18))
    assert cpu.choose()[0] == "black"


@pytest.mark.parametrize("family", [25, 26])
def test_zen3_and_later_pext(host, family):
    host(_info("AuthenticAMD", family))
    assert cpu.choose() == ("pext", f"pext (bmi2, AuthenticAMD family {family})", None)


def test_no_bmi2_black(host):
    host(_info(bmi2=False), llvm_bmi2=False)
    assert cpu.choose() == ("black", "black (no bmi2, GenuineIntel family 6)", None)


def test_llvm_must_confirm_bmi2(host):
    host(_info(), llvm_bmi2=False)
    assert cpu.choose() == ("black", "black (bmi2 not confirmed by LLVM, GenuineIntel family 6)",
                            None)


def test_aarch64_magic(host):
    host({"arch": "ARM_8", "arch_string_raw": "aarch64", "flags": ["asimd"]}, llvm_bmi2=False)
    assert cpu.choose() == ("magic", "magic (non-x86 aarch64)", None)


def test_detection_failure_is_magic(host, monkeypatch):
    host(_info())

    def boom(use_cache=True):
        raise RuntimeError("no cpuinfo")
    monkeypatch.setattr(cpu, "cpu_info", boom)
    assert cpu.choose() == ("magic", "magic (cpu detection failed: RuntimeError)", None)


@pytest.mark.parametrize("name", ["magic", "black", "rayscan", "pext", " PEXT ", "Black"])
def test_env_override(host, monkeypatch, name):
    host(_info("AuthenticAMD", 0x17))
    monkeypatch.setenv(cpu.OVERRIDE_ENV, name)
    want = name.strip().lower()
    assert cpu.choose() == (want, f"{want} (override UCI_ENGINE_SLIDERS)", None)


def test_argument_beats_env(host, monkeypatch):
    host(_info())
    monkeypatch.setenv(cpu.OVERRIDE_ENV, "rayscan")
    assert cpu.choose("magic") == ("magic", "magic (override --sliders)", None)
    assert cpu.choose("black") == ("black", "black (override --sliders)", None)
    assert cpu.choose("auto")[0] == "rayscan"  # "auto" defers to the environment
    monkeypatch.setenv(cpu.OVERRIDE_ENV, "auto")
    assert cpu.choose(None) == ("pext", "pext (bmi2, GenuineIntel family 6)", None)


@pytest.mark.parametrize("via_env", [False, True])
def test_pext_request_without_bmi2_falls_back(host, monkeypatch, via_env):
    host(_info(bmi2=False), llvm_bmi2=False)
    if via_env:
        monkeypatch.setenv(cpu.OVERRIDE_ENV, "pext")
    backend_, text, warning = cpu.choose(None if via_env else "pext")
    source = cpu.OVERRIDE_ENV if via_env else "--sliders"
    # the automatic choice of that CPU: black magics on x86 without BMI2
    assert backend_ == "black"
    assert text == f"black (override {source}: pext unavailable, no bmi2)"
    assert warning and "BMI2" in warning and source in warning and "using black" in warning


@pytest.mark.parametrize("via_env", [False, True])
def test_unknown_override_raises(host, monkeypatch, via_env):
    host(_info())
    if via_env:
        monkeypatch.setenv(cpu.OVERRIDE_ENV, "bogus")
    with pytest.raises(ValueError, match="bogus"):
        cpu.choose(None if via_env else "bogus")


def test_host_has_bmi2_honours_numba_cpu_features(monkeypatch):
    monkeypatch.setattr(cpu, "_llvm_host", lambda: ("znver5", {"bmi2": True}))
    monkeypatch.delenv("NUMBA_CPU_FEATURES", raising=False)
    assert cpu.host_has_bmi2()
    monkeypatch.setenv("NUMBA_CPU_FEATURES", "+avx2,-bmi2")
    assert not cpu.host_has_bmi2()
    monkeypatch.setenv("NUMBA_CPU_FEATURES", "+avx2,+bmi2")
    assert cpu.host_has_bmi2()
    monkeypatch.setattr(cpu, "_llvm_host", lambda: ("generic", {"bmi2": False}))
    assert not cpu.host_has_bmi2()  # forcing +bmi2 cannot make the host execute it


def test_cpu_info_cache_roundtrip(tmp_path, monkeypatch):
    path = tmp_path / "sub" / "cpu.json"
    monkeypatch.setattr(cpu, "_cache_path", lambda: str(path))
    calls = []
    monkeypatch.setattr(cpu, "_read_cpu_info", lambda: calls.append(1) or _info())
    assert cpu.cpu_info() == _info() and len(calls) == 1
    assert json.loads(path.read_text())["info"] == _info()
    assert cpu.cpu_info() == _info() and len(calls) == 1  # served from the cache
    monkeypatch.setattr(cpu, "_cache_key", lambda: "another host")
    assert cpu.cpu_info() == _info() and len(calls) == 2  # key mismatch: read again
    path.write_text("{not json")
    assert cpu.cpu_info() == _info() and len(calls) == 3  # corrupt file: read again


def test_cpu_info_unwritable_cache(tmp_path, monkeypatch):
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    monkeypatch.setattr(cpu, "_cache_path", lambda: str(blocker / "cpu.json"))
    monkeypatch.setattr(cpu, "_read_cpu_info", lambda: _info())
    assert cpu.cpu_info() == _info()
    assert list(tmp_path.iterdir()) == [blocker]


def test_real_host_choice_is_well_formed(monkeypatch):
    monkeypatch.delenv(cpu.OVERRIDE_ENV, raising=False)
    backend_, text, warning = cpu.choose()
    assert backend_ in ("pext", "black", "magic") and warning is None
    assert text.startswith(f"{backend_} (") and text.endswith(")")
    if backend_ == "pext":
        assert cpu.host_has_bmi2()


def test_read_cpu_info_real_fields():
    info = cpu._read_cpu_info()
    assert "arch" in info and "arch_string_raw" in info
    if cpu._is_x86(info):
        assert "flags" in info and "vendor_id_raw" in info


def test_choose_and_select(monkeypatch, tmp_path):
    for var in ("UCI_ENGINE_ACTIVE_SLIDERS", "NUMBA_CACHE_DIR", "UCI_ENGINE_USER_NUMBA_CACHE_DIR"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(backend, "_selected", None)
    assert backend.choose_and_select("rayscan") == ("rayscan", "rayscan (override --sliders)",
                                                    None)
    assert backend.selected() == "rayscan"
    root = os.path.join(str(tmp_path), "uci_engine")
    assert os.environ["NUMBA_CACHE_DIR"] == backend.cache_dir("rayscan")
    assert os.path.basename(backend.cache_dir("rayscan")).startswith("rayscan-")
    assert backend.cache_root().startswith(root)  # NUMBA_CACHE_DIR set by select is not a base
