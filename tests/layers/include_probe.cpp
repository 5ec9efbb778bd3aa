// Includes one header, ALLFIVES_PROBE_HEADER, into a program linked to one layer's target
// (tests/CMakeLists.txt): it compiles only if the architecture lets that layer use the header.
#include ALLFIVES_PROBE_HEADER

int main() {
  return 0;
}
