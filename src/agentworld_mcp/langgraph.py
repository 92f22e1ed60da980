"""Old import path, kept so user code keeps working: the module is :mod:`agentworld_mcp.integrations.langgraph`.

``import agentworld_mcp.langgraph`` gives that very module object (not a copy), so monkeypatching
and ``from agentworld_mcp.langgraph import ...`` behave exactly as before the move.
"""

import sys

from .integrations import langgraph as _module

sys.modules[__name__] = _module
