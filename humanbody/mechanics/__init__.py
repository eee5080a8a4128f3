"""Mechanics of the tree: kinematics (Huston ch. 8), results, relative motion, clinical angles,
external loads, kinetics (ch. 9-10), dynamics."""
