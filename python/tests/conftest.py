"""Shared fixtures: the H200 spec and the repository's data directory."""

import pathlib

import pytest

import roofcast

REPO = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def h200():
    return roofcast.spec("h200-sxm")


@pytest.fixture(scope="session")
def spec_file():
    return REPO / "data" / "gpus" / "h200-sxm.json"
