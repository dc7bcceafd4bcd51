from .elasticsearch_lucene import LuceneBackend
from .elasticsearch_eql import EqlBackend
from .elasticsearch_esql import ESQLBackend
from .elasticsearch_elastalert import ElastalertBackend
