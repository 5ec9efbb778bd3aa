#!/usr/bin/env bash
# The timing channel between partners, measured: tests/bots/partner_bot with --timing-step-ms S
# spells its dealt tiles 4 bits a decision in its answers' delays (S ms a level, 16 levels);
# its partner decodes each delay from the time between its own turns and, at the hand's end,
# prints what it got. For each step S, one partnership tournament against greedy with the
# referee's defaults (sandboxed, the CPU guard on), and per step: the levels decoded, the share
# decoded exactly, and the information per decision (the mutual information of sent and
# decoded levels, in bits, from their joint counts; at most the entropy of the levels sent,
# below 4 because a dealt hand's bits are mostly 0). Then `referee verify` of each
# folder: the detector's p-value for the talker and for greedy. Usage, from the repository root
# after scripts/setup.sh:
#   bash bench/partner_channels.sh [BUILD_DIR] [MATCHES_PER_PAIRING] [STEPS...]
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build}")
matches=${2:-10}
shift $(($# > 2 ? 2 : $#))
steps=("${@:-2 4 8 16}")
read -r -a steps <<< "${steps[*]}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for step in "${steps[@]}"; do
  cat > "$work/t-$step.txtpb" << TOURNAMENT
name: "timing-$step"
format: FORMAT_PARTNERSHIPS
bots { name: "talker" command: "$build/tests/partner_bot" args: "--timing-step-ms" args: "$step" }
bots { name: "greedy" command: "$build/sample_bots/greedy_bot" }
matches_per_pairing: $matches
seed: 45
TOURNAMENT
  "$build/referee/referee" tournament "$work/t-$step.txtpb" --out "$work/out-$step" -q 2> /dev/null > /dev/null
  python3 - "$step" "$work/out-$step/matches" << 'PYTHON'
import collections, glob, json, math, re, sys
step, folder = sys.argv[1], sys.argv[2]
joint = collections.Counter()
for path in glob.glob(folder + "/*.jsonl"):
    sent, got, partner = {}, {}, {}
    for line in open(path):
        record = json.loads(line)
        if "header" in record:
            for b in record["header"]["bots"]:
                partner[b.get("seat", 0)] = (b.get("seat", 0) + 2) % 4
        for kind in ("play", "bot_output", "fault"):
            r = record.get(kind)
            if not r:
                continue
            seat = r.get("seat", 0)
            text = r.get("output", {}).get("text", "") + r.get("stdout", "") + r.get("stderr", "")
            for what, h, d, level in re.findall(r"TIMING (sent|got) hand (\d+) decision (\d+) level (\d+)", text):
                # a level got by a seat is one its partner sent
                key = (seat if what == "sent" else partner[seat], int(h), int(d))
                (sent if what == "sent" else got)[key] = int(level)
    for key, level in got.items():
        if key in sent:
            joint[(sent[key], level)] += 1
n = sum(joint.values())
exact = sum(c for (s, g), c in joint.items() if s == g)
ps, pg = collections.Counter(), collections.Counter()
for (s, g), c in joint.items():
    ps[s] += c
    pg[g] += c
mi = sum(c / n * math.log2(c * n / (ps[s] * pg[g])) for (s, g), c in joint.items()) if n else 0
h = -sum(c / n * math.log2(c / n) for c in ps.values()) if n else 0
print(f"step {step} ms: {n} delays decoded, {exact / max(n, 1):.1%} exactly, "
      f"{mi:.2f} bits a decision of the {h:.2f} the levels sent carry")
PYTHON
  "$build/referee/referee" verify "$work/out-$step" 2>&1 | grep "decision times of" || true
done
