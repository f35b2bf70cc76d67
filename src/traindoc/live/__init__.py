"""Live mode: the offline rules run inside training, plus a stall watchdog.

Framework-free: `Monitor` takes plain numbers. The adapters in
`traindoc.integrations` (hf, lightning, torch) are the only modules that
import a training framework.
"""

from traindoc.live.monitor import Monitor, TrainingStopped
from traindoc.live.policy import Policy

__all__ = ["Monitor", "Policy", "TrainingStopped"]
