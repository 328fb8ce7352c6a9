"""Server-driven moves: ``Match.bot_seats`` and ``Match.server_move_at`` (games.tasks drives them).

Existing bot matches get ``bot_seats = [1]``; every active match with a bot or a turn timer gets
``server_move_at = now``, so the first beat sweep looks at it and sets the real due time (or plays the
move that is due).
"""

from typing import Any

from django.conf import settings
from django.db import migrations, models


def forwards(apps: Any, schema_editor: Any) -> None:
    from django.db.models import Q
    from django.utils import timezone

    Match = apps.get_model("games", "Match")
    Match.objects.filter(bot_level__isnull=False).update(bot_seats=[1])
    Match.objects.filter(status="active").filter(
        Q(bot_level__isnull=False) | Q(turn_deadline__isnull=False)
    ).update(server_move_at=timezone.now())


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0005_result_reason_abandoned'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='match',
            name='bot_seats',
            field=models.JSONField(blank=True, default=list, verbose_name='bot seats'),
        ),
        migrations.AddField(
            model_name='match',
            name='server_move_at',
            field=models.DateTimeField(blank=True, null=True, verbose_name='server move due'),
        ),
        migrations.AddIndex(
            model_name='match',
            index=models.Index(fields=['status', 'server_move_at'], name='games_match_server_move_idx'),
        ),
        migrations.RunPython(forwards, migrations.RunPython.noop),
    ]
