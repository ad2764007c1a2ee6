"""The network and the clock: the bus that carries every hop, simulated time, modes, the trace."""
