// Must not compile: a bot that links only allfives::bot reaches for the protocol's headers.
// The test sdk_hides_protocol builds it and expects the compiler to say it cannot find them.
#include "allfives/wire/convert.h"

int main() {
  return 0;
}
