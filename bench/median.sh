# Sourced by the benchmarks: the median of the numbers on standard input, one a line (the
# mean of the middle two for an even count), and the wall seconds a command takes.
#   printf '%s\n' "${values[@]}" | median
#   seconds COMMAND ARGS...   (its output discarded)
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
seconds() {
  local start end
  start=$(date +%s.%N)
  "$@" > /dev/null 2>&1
  end=$(date +%s.%N)
  echo "$end - $start" | bc
}
