"""Muscles of an OpenSim model: paths and wrapping, lengths, lengthening velocities and moment arms."""
