"""Plans: saved, versioned quotes (a workload, its computed result, the price list used)."""
