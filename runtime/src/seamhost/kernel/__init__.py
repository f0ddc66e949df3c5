"""The kernel: what turns a profile into a bundle of plugins and drives its seams.

Build time only: the seam catalogue and hook specs, plugin descriptors and discovery, profiles,
the bundle and its snapshot, the dispatch modes and the typed façade (:mod:`.seams`).
"""
