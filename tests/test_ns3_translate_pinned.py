"""The ns-3 configurations the translator makes are pinned: a hash of ``translate()``'s output for every
validation scenario (seeds 1 and 7) and for a few variants that reach the paths those leave out. The stored
ns-3 runs are keyed by these configurations (``validation/cache.py``), so a change here re-runs them."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Dict

import pytest

from bufferlab import jsonout
from bufferlab.commands.validate import load_file
from bufferlab.validation import ns3sim

ROOT = Path(__file__).resolve().parents[1]

#: Scenario variants beyond the validation scenarios (byte limits, ce_threshold, CUBIC with pacing, ...).
VARIANTS = {
    "bytes-limit": {"bottleneck": {"rate": "20Mbps", "delay": "5ms",
                                   "queue": {"discipline": "droptail", "limit_bytes": "100KB"}},
                    "flows": {"count": 3, "rtt": ["40ms", "80ms", "120ms"]}},
    "fq-codel-ce": {"bottleneck": {"rate": "10Mbps", "delay": "5ms",
                                   "queue": {"discipline": "fq-codel", "ce_threshold": "3ms", "flows": 64}},
                    "flows": {"count": 4, "rtt": "60ms"}, "tcp": {"ecn": True, "max_window": 50}},
    "cubic-linux-pacing": {"bottleneck": {"rate": "20Mbps", "delay": "5ms",
                                          "queue": {"discipline": "red", "limit": 60}},
                           "flows": {"count": 2, "rtt": "100ms"},
                           "tcp": {"congestion_control": {"kind": "cubic", "c": 0.5}, "pacing": "linux",
                                   "delayed_ack": True, "header_size": "52B", "max_rto": "10s"}},
    "pie-bytes": {"bottleneck": {"rate": "20Mbps", "delay": "5ms",
                                 "queue": {"discipline": "pie", "limit": 200, "ecn": True, "target": "20ms"}},
                  "flows": {"count": 2, "rtt": "50ms"}, "tcp": {"ecn": True}},
    "codel-mtu": {"bottleneck": {"rate": "20Mbps", "delay": "5ms",
                                 "queue": {"discipline": "codel", "mtu": 1500, "limit": 300}},
                  "flows": [{"count": 2, "rtt": "50ms"},
                            {"count": 1, "rtt": "80ms", "tcp": {"min_rto": "1s", "initial_window": 4}}]},
    "ared-given": {"bottleneck": {"rate": "20Mbps", "delay": "5ms",
                                  "queue": {"discipline": "ared", "limit": 100, "min_th": 10, "max_th": 40,
                                            "weight": 0.003}},
                   "flows": {"count": 3, "rtt": "100ms"}, "tcp": {"overhead": "1ms", "handshake": True}},
    "step-dctcp-k2": {"bottleneck": {"rate": "100Mbps", "delay": "50us",
                                     "queue": {"discipline": "step", "threshold": 2, "limit": 100}},
                      "flows": {"count": 3, "rtt": "1ms"},
                      "tcp": {"ecn": True, "congestion_control": {
                          "kind": "dctcp", "g": 0.125, "alpha_init": 0.5, "loss_backoff": "alpha"}}},
}

#: sha256 (first 32 hex digits) of each configuration, as JSON with sorted keys.
PINNED = {
    "v01-1flow-droptail-1bdp@1": "c0ab3aff86957a6e97be4c0d2139bd6b",
    "v01-1flow-droptail-1bdp@7": "bdf4c8be9e85472067d9bee5583303c2",
    "v02-1flow-droptail-0.25bdp-delack@1": "cf439b4fcefdfb714dbc39895bba4e1b",
    "v02-1flow-droptail-0.25bdp-delack@7": "60d8e041e54a33ce5f0fcb7264a63ac2",
    "v03-10flows-droptail-0.5bdp@1": "a58e8f4a0df9eac9deac913385bc16e4",
    "v03-10flows-droptail-0.5bdp@7": "23437413867181dfb2462a7e82487153",
    "v04-10flows-droptail-2bdp-spread-delack@1": "ae1e16111dec1a7114eaeffb27f3a256",
    "v04-10flows-droptail-2bdp-spread-delack@7": "4ca317c5b16449c7994d26aa1752c075",
    "v05-10flows-red-drop@1": "55246254f01d3781974b40b6a4f119e9",
    "v05-10flows-red-drop@7": "6979954ac868755f83c56d89e9914e1c",
    "v06-10flows-red-ecn@1": "187ad82c8881173d69562e855e494f73",
    "v06-10flows-red-ecn@7": "cc325f49481986464abceaf3dde79bfe",
    "v07-100flows-droptail-0.1bdp@1": "d74c6e1986084a64cfd85b091b1ded60",
    "v07-100flows-droptail-0.1bdp@7": "326df27c0ff731ef126eb46c3e9f1e91",
    "v08-100flows-droptail-1bdp-spread@1": "50fc557de818c5d73aaafb76c3f9b497",
    "v08-100flows-droptail-1bdp-spread@7": "5ec26e034d3e044eda05b3376931c1e8",
    "v09-100flows-red-drop-delack@1": "5c3883d2c620eda5861e94b804f47a5a",
    "v09-100flows-red-drop-delack@7": "d64c8b4636c69ea3665e7a44f697412d",
    "v10-100flows-red-ecn-spread@1": "8925fc048a42dee9d501b3894f0bf0f0",
    "v10-100flows-red-ecn-spread@7": "f73bbec815d40405a88a91f8c51d835c",
    "v11-1000flows-droptail-2bdp-spread@1": "a8504ce663a2956e6c2f103eba7c8c1d",
    "v11-1000flows-droptail-2bdp-spread@7": "a3736011712e35ed8a4084804f7ceb3e",
    "v12-1000flows-droptail-0.5bdp-delack@1": "f108245ca7974a6786cb13789f12d84f",
    "v12-1000flows-droptail-0.5bdp-delack@7": "d9507d98017f1672dba8e3d66096c991",
    "v13-1000flows-red-ecn@1": "32add9288b39174def1d0d83f1583290",
    "v13-1000flows-red-ecn@7": "35990f48c2e3ef6627dce0b6f4e1faed",
    "v14-parking-lot-2hops-cross@1": "0b9da3d2219ff76e737c58cc6b4ae329",
    "v14-parking-lot-2hops-cross@7": "e9118291ac7882348517f04a6c4a9493",
    "v15-two-way-queued-acks@1": "da5f96a315a70e3d89772af769d387a6",
    "v15-two-way-queued-acks@7": "f41906ecc04e4e151e6888547dd7f9ff",
    "v16-two-groups-rtt-delack@1": "729c2d41ea5cba7058f772c879b9f550",
    "v16-two-groups-rtt-delack@7": "68c921d165de5de0523a80e97eb1700f",
    "v17-10flows-codel@1": "d180fe3d732c416516bdc6d3213d9794",
    "v17-10flows-codel@7": "b65f388438b3e89100462c4e0ec8169c",
    "v18-100flows-codel-ecn-spread@1": "4e7128a60556d0b762913bfadcd33ad3",
    "v18-100flows-codel-ecn-spread@7": "7b04402dd0238376a932c15ce90bbf76",
    "v19-10flows-pie@1": "08705c22e0ac1ceb41babc0dffe12795",
    "v19-10flows-pie@7": "7cfbb44e4142afaadd171a7ff7426267",
    "v20-100flows-pie-ecn-spread@1": "cffa15e8368b7667b1c81a14f1c05f4a",
    "v20-100flows-pie-ecn-spread@7": "2ba5fd323d2095ea0d6fd0e675e256f4",
    "v21-10flows-cubic-droptail-1bdp@1": "0f550cdbb5b82a44cbdd570c48f0a81c",
    "v21-10flows-cubic-droptail-1bdp@7": "60293a4ebd7e116c3623d635c67ab2b5",
    "v22-10flows-paced-droptail-0.25bdp@1": "e6fd5fcf1f47d2aa8c78f365626cf229",
    "v22-10flows-paced-droptail-0.25bdp@7": "8137d965751cbc1dbbf6069210b8d208",
    "v23-10flows-ared@1": "5ab7aa093ee03c57aa924fc273c2a24b",
    "v23-10flows-ared@7": "be12cb730a6a9a5cc7b8338c45442e2f",
    "v24-100flows-ared-ecn-spread@1": "bb9b8135a5ccd4e30cc9bfa49370a99d",
    "v24-100flows-ared-ecn-spread@7": "a060bdfb48e5cbc807fe6ada9a3d3dbc",
    "v25-10flows-fq-codel-two-rtts@1": "b448fe05340e60288fdbbea97af639c0",
    "v25-10flows-fq-codel-two-rtts@7": "943eca383bcb479e53842c3de3d9eaec",
    "v26-10flows-droptail-rtt10to1@1": "8c7e16b9905948192cebb467232634cc",
    "v26-10flows-droptail-rtt10to1@7": "23621840adfe98a09815b01e6b5e2741",
    "v27-10flows-red-rtt20to1@1": "b095ebad1672de3be49c30c7cc986d70",
    "v27-10flows-red-rtt20to1@7": "5a807006f0631359bea1e1875033b777",
    "v28-5flows-droptail-0.05bdp@1": "873d79e46a8e91e8c7d14899a773a987",
    "v28-5flows-droptail-0.05bdp@7": "d5e58ed75d921de1a48e699e8d91a6aa",
    "v29-40flows-droptail-0.02bdp-minrto-200ms@1": "7327522785b913fae86183cfd5d880ec",
    "v29-40flows-droptail-0.02bdp-minrto-200ms@7": "265de2b947d8b69b76310a37e441eafe",
    "v30-40flows-droptail-0.02bdp-minrto-1s@1": "59114fc22db3d38ae8508d02815901c1",
    "v30-40flows-droptail-0.02bdp-minrto-1s@7": "f43acb29d5e0b0938a6d25595dd82a2a",
    "v31-400flows-droptail-0.01bdp@1": "fde896d06d284c4054bb74cad23b9272",
    "v31-400flows-droptail-0.01bdp@7": "d1818e54bd779d95c3efeee34edd1f52",
    "v32-10flows-droptail-3bdp@1": "e5abbae3f319e65c64e32adb7750957b",
    "v32-10flows-droptail-3bdp@7": "212fec2cdb8c8588cb17951721ade8f3",
    "v33-10flows-droptail-1500B@1": "5f96b8ee8adfa2316c620ab933771bdb",
    "v33-10flows-droptail-1500B@7": "90ca2f185537183c4c9489e86d57341e",
    "v34-two-groups-576B-1500B@1": "344823232a373d3903a2091c12848d1b",
    "v34-two-groups-576B-1500B@7": "2142be78c1794c546621acbc7d7c191b",
    "v35-20flows-slow-access-0.02bdp@1": "db683687a6582f319a8911c6458f8e4a",
    "v35-20flows-slow-access-0.02bdp@7": "1a868fb6e5c91f0a9f45afd96ce5c34d",
    "v36-7flows-droptail-tiny-overhead@1": "35c4a501f30cfcb01bf2c7a62f2c6076",
    "v36-7flows-droptail-tiny-overhead@7": "2dcac3a2aab1d521d085dc9fb7800164",
    "v37-40flows-droptail-6pkts@1": "bbe52338b2d9068a050f2d2d6c4ff947",
    "v37-40flows-droptail-6pkts@7": "23af599357af1e156a7e599f7ac905bd",
    "v38-80flows-droptail-8pkts@1": "dbf8aae1a63238cde749d50aee04cdcb",
    "v38-80flows-droptail-8pkts@7": "5fb71d684dde16f1f3898a22cf07aa66",
    "v39-40flows-droptail-10pkts@1": "033117a26fefb3722aaaa5cadab1aef6",
    "v39-40flows-droptail-10pkts@7": "d14c12c0e03f46aeb295cd7ee2f1b76b",
    "v40-20flows-droptail-13pkts@1": "a2235b76bf63b0eb3e19be2cfd308992",
    "v40-20flows-droptail-13pkts@7": "f6af77ec6409e8f89ecdaf5fcecebc61",
    "v41-80flows-droptail-16pkts@1": "a149c38f25ca02177c3dcac3269ca822",
    "v41-80flows-droptail-16pkts@7": "fb3c897b73043fb063bb0c809a1cb527",
    "v42-80flows-droptail-6pkts-spread@1": "20918fea6965cb1fa6d73bb174f3e852",
    "v42-80flows-droptail-6pkts-spread@7": "d8121f30816fae18296999871e287266",
    "v43-20flows-droptail-10pkts-spread@1": "984b38f2ec5e70a9ae0fc6be96064102",
    "v43-20flows-droptail-10pkts-spread@7": "9a9a113fdc1ed79b297a20717ebbda4b",
    "v44-40flows-droptail-16pkts-spread@1": "e19024133d74709c0d37b7220822f791",
    "v44-40flows-droptail-16pkts-spread@7": "366e66f6be4ec7d051a43071452d3d5c",
    "v45-10flows-dctcp-step-k20@1": "a0b63e0372272df16d8054b0c31316cb",
    "v45-10flows-dctcp-step-k20@7": "3ad06e9795be137cc5468fec31411129",
    "v46-2flows-dctcp-step-k20-delack@1": "d35299b475b3ee31dad04abad7ac6a38",
    "v46-2flows-dctcp-step-k20-delack@7": "267b3d6cdbad77b2e3baa994a59dd76b",
    "v47-2flows-dctcp-step-k5@1": "8e4e3bf6fadf27f74e47253c250459d9",
    "v47-2flows-dctcp-step-k5@7": "471b824dee727f5d03e34eb89fbbf02a",
    "v48-20flows-dctcp-step-k40-spread-delack@1": "a84daeff460f9d02d409ec013fbd4f0d",
    "v48-20flows-dctcp-step-k40-spread-delack@7": "59013588d2975122a9db3603cd5987f0",
    "v49-2flows-bbr-droptail-2bdp@1": "c9e87f956cb92a078be30bb4d427b6b3",
    "v49-2flows-bbr-droptail-2bdp@7": "4e5662343e107f2e25053bb9da8aabe4",
    "v50-4flows-bbr-droptail-quarter-bdp@1": "cf28a44d993f9898816336fde3d8f8d9",
    "v50-4flows-bbr-droptail-quarter-bdp@7": "b51fb7b03e2f252052527dc1fd33f61c",
    "v51-bbr-vs-cubic-droptail-half-bdp@1": "0b7c688674fab9f70a1b18a1ce0185c2",
    "v51-bbr-vs-cubic-droptail-half-bdp@7": "dee0dc6889eb6673483e8138d3c0b970",
    "v52-bbr-vs-cubic-droptail-4bdp@1": "d524dfcfc229582fb606177c1ea6c156",
    "v52-bbr-vs-cubic-droptail-4bdp@7": "40b498358d9850c51c2e1a63f2ceced2",
    "v53-1flow-bbr-droptail-1bdp@1": "c57ddb26ef67fcbc0a91d37b3ca86453",
    "v53-1flow-bbr-droptail-1bdp@7": "01ddc1e37f7b51548df81cabcec49882",
    "v54-bbr-vs-cubic-droptail-1bdp@1": "fdc102fa52f9dd341f09f0ba271c97be",
    "v54-bbr-vs-cubic-droptail-1bdp@7": "90aedc12c044cc1c7c4ea6379c92678f",
    "v55-bbr-vs-cubic-droptail-4bdp-rto300ms@1": "df2387a34ca81799eb8ea6986ae1101e",
    "v55-bbr-vs-cubic-droptail-4bdp-rto300ms@7": "d5e71c69742a85e0bc1fd7ba77c9af4d",
    "v56-bbr-vs-cubic-droptail-4bdp-rto1s@1": "b49b11cf42be7c920ba5e0916731cb6f",
    "v56-bbr-vs-cubic-droptail-4bdp-rto1s@7": "0747703e56cf5789b380e6fde84a74ee",
}
VARIANT_PINS = {
    "ared-given": "e760167baf95cf0707b1c763de36942a",
    "bytes-limit": "4f3b8acac83c5906835927cb74abf676",
    "codel-mtu": "0b406864bd38587780489ccdb41040a3",
    "cubic-linux-pacing": "a3caa00df94cdc834503252fdc42c011",
    "fq-codel-ce": "b3510e13ad0a0effc9c4b2c28eadcb72",
    "pie-bytes": "bd160e6aa379291758320490d7dda7fd",
    "step-dctcp-k2": "22e2bf10116ce5f2de1bc2a9d57b4223",
}


def _digest(cfg: Dict[str, Any]) -> str:
    return hashlib.sha256(jsonout.dumps(cfg, sort_keys=True, default=str).encode()).hexdigest()[:32]


@pytest.mark.parametrize("pin", sorted(PINNED))
def test_translate_is_pinned_for_every_validation_scenario(pin: str) -> None:
    name, seed = pin.split("@")
    scenario = load_file(ROOT / "validation" / "scenarios" / f"{name}.toml")
    assert _digest(ns3sim.translate({**scenario, "seed": int(seed)})) == PINNED[pin]


def test_every_validation_scenario_is_pinned() -> None:
    names = {p.stem for p in (ROOT / "validation" / "scenarios").glob("*.toml")}
    assert {pin.split("@")[0] for pin in PINNED} == names


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_translate_is_pinned_for_the_variants(name: str) -> None:
    scenario = {"name": name, "duration": "20s", "warmup": "5s", **VARIANTS[name]}
    assert _digest(ns3sim.translate(scenario)) == VARIANT_PINS[name]
