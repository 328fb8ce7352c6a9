"""The moderators: the ``fairplay.moderate`` permission and the group "fair-play moderators" holding it
with the view permissions of the queue's tables (docs/fairplay.md "Moderation"). A superuser has every
permission anyway; a staff member sees the queue once added to the group."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.management import create_permissions
from django.db import migrations

GROUP = "fair-play moderators"
PERMISSIONS = [
    "moderate", "view_playersignal", "view_pairsignal", "view_report", "view_moderationaction",
    "view_seatsignal",
]


def forward(apps: Any, schema_editor: Any) -> None:
    # Permissions are made by post_migrate, after every migration: make fairplay's now (a fresh
    # database), as Django's own documentation suggests for a data migration that needs them.
    config = apps.get_app_config("fairplay")
    config.models_module = True
    create_permissions(config, apps=apps, verbosity=0)
    config.models_module = None
    group_model = apps.get_model("auth", "Group")
    permission_model = apps.get_model("auth", "Permission")
    group, _ = group_model.objects.get_or_create(name=GROUP)
    group.permissions.add(*permission_model.objects.filter(content_type__app_label="fairplay",
                                                            codename__in=PERMISSIONS))


def backward(apps: Any, schema_editor: Any) -> None:
    apps.get_model("auth", "Group").objects.filter(name=GROUP).delete()


class Migration(migrations.Migration):

    dependencies = [
        ("fairplay", "0002_notices"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="moderationaction",
            options={"ordering": ("-created_at", "-id"),
                     "permissions": [("moderate", "Can see the moderation queue and act on accounts")]},
        ),
        migrations.RunPython(forward, backward),
    ]
