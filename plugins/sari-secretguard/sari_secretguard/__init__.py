"""sari-secretguard: keep a workspace's secrets out of what the model sees."""

from sari_secretguard.plugin import SecretguardPlugin
from sari_secretguard.settings import SecretguardSettings

__all__ = ["SecretguardPlugin", "SecretguardSettings"]
