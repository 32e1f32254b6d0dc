#include "model/pcie_aer.h"

namespace gt {

AerTotals aer_totals(const AerCounters& c) {
  AerTotals t;
  if (c.correctable) t.correctable = c.correctable->total;
  if (c.nonfatal) t.nonfatal = c.nonfatal->total;
  if (c.fatal) t.fatal = c.fatal->total;
  return t;
}

bool aer_read(const AerCounters& c) {
  return c.correctable || c.nonfatal || c.fatal || c.rootport_correctable || c.rootport_nonfatal ||
         c.rootport_fatal;
}

}  // namespace gt
