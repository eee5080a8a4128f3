"""Tools behind commands that are not the analysis: the marker-set draft from a standing trial (:mod:`.markerset`)."""
