"""The published studies `aqmlab reproduce` knows: each is a module of this package that defines ``STUDY``
(a :class:`aqmlab.studies.base.Study`; a hyphen in a study's name is an underscore in its module's),
imported by :func:`load` when it is reproduced (the studies use pandas, scipy and matplotlib). Their
scenarios (``scenarios/``) and reference data are package data, read with :mod:`importlib.resources`, so
that an installed wheel reproduces them."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aqmlab.studies.base import Study

NAMES = ("chrost2009", "l4s-coexistence", "le2003", "weigle2005")


def load(name: str) -> Study:
    """The study ``name`` (one of :data:`NAMES`)."""
    return importlib.import_module(f"{__name__}.{name.replace('-', '_')}").STUDY
