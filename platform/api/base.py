"""What every API view shares: read-only methods, English answers, strictly parsed query strings."""

from __future__ import annotations

from typing import Any, TypeVar

from django.utils import translation
from rest_framework import exceptions, serializers
from rest_framework.request import Request
from rest_framework.views import APIView

from api.errors import BadQuery
from infra.db_router import replica_reads

S = TypeVar("S", bound=serializers.Serializer)


class ApiView(APIView):
    """Base of the API's views: only GET (and HEAD, OPTIONS); any other method is a 405 JSON error before
    anything else runs (authentication, throttles); answers in English whatever the reader's language.
    Its reads of settled data (ratings, finished matches, tournaments) may go to a read replica
    (infra.db_router: the API tolerates the replica's lag; sessions and accounts stay on the primary)."""

    http_method_names = ["get", "head", "options"]

    def dispatch(self, request: Any, *args: Any, **kwargs: Any) -> Any:
        with replica_reads():
            return super().dispatch(request, *args, **kwargs)

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        translation.activate("en")
        if request.method is None or request.method.lower() not in self.http_method_names:
            raise exceptions.MethodNotAllowed(request.method or "")
        super().initial(request, *args, **kwargs)


def parse_query(serializer_class: type[S], request: Request) -> dict[str, Any]:
    """The query string of ``request`` validated by ``serializer_class`` (its fields are the parameters;
    unknown parameters are ignored). A parameter given twice is refused (which value was meant?).

    :raises BadQuery: a parameter is invalid (each one with its problems).
    """
    params = request.query_params
    fields = serializer_class().fields.keys()  # the names (DRF's stubs iterate a BindingDict as Fields)
    repeated = {name: ["give this parameter once"] for name in fields if len(params.getlist(name)) > 1}
    if repeated:
        raise BadQuery(repeated)
    serializer = serializer_class(data={name: params[name] for name in fields if name in params})
    if not serializer.is_valid():
        raise BadQuery({name: [str(e) for e in errors] for name, errors in serializer.errors.items()})
    return dict(serializer.validated_data)
