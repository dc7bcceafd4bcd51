from .rule import SigmaRule
from .logsource import SigmaLogSource
from .detection import SigmaDetection, SigmaDetectionItem, SigmaDetections
from .base import SigmaRuleBase, SigmaYAMLLoader
from .attributes import (
    EnumLowercaseStringMixin,
    SigmaStatus,
    SigmaLevel,
    SigmaRelatedType,
    SigmaRelatedItem,
    SigmaRelated,
    SigmaRuleTag,
)

__all__ = [
    "SigmaRule",
    "SigmaLogSource",
    "SigmaDetection",
    "SigmaDetectionItem",
    "SigmaDetections",
    "SigmaRuleBase",
    "SigmaYAMLLoader",
    "EnumLowercaseStringMixin",
    "SigmaStatus",
    "SigmaLevel",
    "SigmaRelatedType",
    "SigmaRelatedItem",
    "SigmaRelated",
    "SigmaRuleTag",
]
