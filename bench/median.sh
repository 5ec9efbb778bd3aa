# Sourced by the benchmarks: the median of the numbers on standard input, one a line (the
# mean of the middle two for an even count).
#   printf '%s\n' "${values[@]}" | median
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
