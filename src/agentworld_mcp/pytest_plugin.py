"""Old import path, kept so user code keeps working: the module is :mod:`agentworld_mcp.integrations.pytest_plugin`.

``import agentworld_mcp.pytest_plugin`` gives that very module object (not a copy), so monkeypatching
and ``from agentworld_mcp.pytest_plugin import ...`` behave exactly as before the move.
"""

import sys

from .integrations import pytest_plugin as _module

sys.modules[__name__] = _module
